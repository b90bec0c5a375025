import { suitesOf } from './e2e-groups.js';

for (const suite of suitesOf(7)) await import(suite);
