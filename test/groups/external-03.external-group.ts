import { databaseSuitesOf } from './e2e-groups.js';

for (const suite of databaseSuitesOf(2)) await import(suite);
