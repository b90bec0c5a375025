import { suitesOf } from './e2e-groups.js';

for (const suite of suitesOf(11)) await import(suite);
