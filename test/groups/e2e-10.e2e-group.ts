import { suitesOf } from './e2e-groups.js';

for (const suite of suitesOf(9)) await import(suite);
