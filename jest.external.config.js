import base from './jest.config.js';

/**
 * `npm run test:external`: the suites that talk to the database (and the Redis one), against the
 * PostgreSQL in TEST_DATABASE_URL. Unit specs and the suites that never open TEST_DATABASE_URL (the
 * docs, the lint rules, local mode and the OpenAPI examples with their own embedded server, the realm
 * file) say nothing new there.
 */
export default {
  ...base,
  testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
  testPathIgnorePatterns: [
    '/node_modules/',
    '<rootDir>/test/docs\\.e2e-spec\\.ts$',
    '<rootDir>/test/lint-boundaries\\.e2e-spec\\.ts$',
    '<rootDir>/test/local-mode(-[a-z-]+)?\\.e2e-spec\\.ts$',
    '<rootDir>/test/openapi-examples\\.e2e-spec\\.ts$',
    '<rootDir>/test/realm-file\\.e2e-spec\\.ts$',
  ],
};
