import { suitesOf } from './e2e-groups.js';

for (const suite of suitesOf(13)) await import(suite);
