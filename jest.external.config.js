import base from './jest.config.js';

/**
 * `npm run test:external` (CI: on Node.js 24): the unit specs, which prove the runtime, and the e2e
 * suites whose outcome the database server or Redis decides: schema and migrations, statements and
 * plans, locks and concurrent writes, connection loss and stalls, the rate limits in Redis, and one
 * issuance and one presentation end to end. The other e2e suites prove HTTP behaviour the same way on
 * any PostgreSQL and run in `npm test` (docs/architecture.md, Tests).
 */
const databaseSuites = [
  'admission',
  'bounded-client',
  'certificates',
  'concurrent-writes',
  'credentials-records',
  'credentials-status',
  'database-stall',
  'entities',
  'idempotency',
  'issuer-purge',
  'master-key-rotation',
  'migrations',
  'oid4vci-issuance',
  'oid4vp-response',
  'parallel-creates',
  'prepared-statement',
  'published-statements',
  'rate-limits',
  'smoke',
  'status-index-allocation',
  'tenant-list-scale',
  'tenant-list-totals',
  'transaction-connection-loss',
  'webhooks-delivery',
  'webhooks-fairness',
];

export default {
  ...base,
  testMatch: [
    '<rootDir>/src/**/*.spec.ts',
    '<rootDir>/packages/*/src/**/*.spec.ts',
    ...databaseSuites.map((name) => `<rootDir>/test/${name}.e2e-spec.ts`),
  ],
};
