import { suitesOf } from './e2e-groups.js';

for (const suite of suitesOf(12)) await import(suite);
