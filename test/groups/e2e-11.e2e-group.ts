import { suitesOf } from './e2e-groups.js';

for (const suite of suitesOf(10)) await import(suite);
