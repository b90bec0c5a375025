import { databaseSuitesOf } from './e2e-groups.js';

for (const suite of databaseSuitesOf(1)) await import(suite);
