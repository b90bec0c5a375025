import { databaseSuitesOf } from './e2e-groups.js';

for (const suite of databaseSuitesOf(3)) await import(suite);
