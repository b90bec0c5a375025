import base, { unitSpecs } from './jest.config.js';

/**
 * `npm run test:external` (CI: on Node.js 24): the unit specs, which prove the runtime, and the e2e
 * suites whose outcome the database server or Redis decides: schema and migrations, statements and
 * plans, locks and concurrent writes, connection loss and stalls, the rate limits in Redis, and one
 * issuance and one presentation end to end. The other e2e suites prove HTTP behaviour the same way on
 * any PostgreSQL and run in `npm test` (docs/architecture.md, Tests).
 */
export default {
  ...base,
  testMatch: [
    ...unitSpecs,
    // The suites listed in test/groups/database-suites.json, in groups (test/groups/e2e-groups.ts).
    '<rootDir>/test/groups/*.external-group.ts',
  ],
  testSequencer: '<rootDir>/test/groups/sequencer.mjs',
};
