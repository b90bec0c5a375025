import { suitesOf } from './e2e-groups.js';

for (const suite of suitesOf(4)) await import(suite);
