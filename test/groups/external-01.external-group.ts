import { databaseSuitesOf } from './e2e-groups.js';

for (const suite of databaseSuitesOf(0)) await import(suite);
