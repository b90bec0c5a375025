import { suitesOf } from './e2e-groups.js';

for (const suite of suitesOf(8)) await import(suite);
