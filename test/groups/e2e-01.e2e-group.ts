import { suitesOf } from './e2e-groups.js';

for (const suite of suitesOf(0)) await import(suite);
