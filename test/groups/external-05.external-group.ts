import { databaseSuitesOf } from './e2e-groups.js';

for (const suite of databaseSuitesOf(4)) await import(suite);
