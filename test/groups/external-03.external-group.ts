import { suitesOf } from './e2e-groups.js';

for (const suite of suitesOf(import.meta.url)) await import(suite);
