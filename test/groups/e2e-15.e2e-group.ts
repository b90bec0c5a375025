import { suitesOf } from './e2e-groups.js';

for (const suite of suitesOf(14)) await import(suite);
