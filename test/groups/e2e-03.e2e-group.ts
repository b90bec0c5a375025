import { suitesOf } from './e2e-groups.js';

for (const suite of suitesOf(2)) await import(suite);
