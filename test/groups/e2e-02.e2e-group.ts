import { suitesOf } from './e2e-groups.js';

for (const suite of suitesOf(1)) await import(suite);
