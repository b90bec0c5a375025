import { suitesOf } from './e2e-groups.js';

for (const suite of suitesOf(3)) await import(suite);
