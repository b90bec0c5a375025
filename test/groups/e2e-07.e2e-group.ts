import { suitesOf } from './e2e-groups.js';

for (const suite of suitesOf(6)) await import(suite);
