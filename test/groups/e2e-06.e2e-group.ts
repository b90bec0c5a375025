import { suitesOf } from './e2e-groups.js';

for (const suite of suitesOf(5)) await import(suite);
