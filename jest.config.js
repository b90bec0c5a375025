/** The unit specs beside the code: every Jest run but the system tests' has them. */
export const unitSpecs = ['<rootDir>/src/**/*.spec.ts', '<rootDir>/packages/*/src/**/*.spec.ts'];

/** Jest in ESM mode: ts-jest compiles TypeScript to ESM, the mapper strips the `.js` of relative imports. */
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json' }],
  },
  testMatch: [...unitSpecs, '<rootDir>/test/**/*.e2e-spec.ts'],
  // Before any module loads jsonld, as in main.ts (src/credentials/jsonld-context-memo.ts).
  setupFiles: ['<rootDir>/src/credentials/jsonld-context-memo.ts'],
  globalSetup: '<rootDir>/test/support/global-setup.mjs',
  globalTeardown: '<rootDir>/test/support/global-teardown.mjs',
  testTimeout: 60000,
  // Three on two cores: the e2e files wait on PostgreSQL, child processes and sockets much of their time.
  maxWorkers: 3,
  // Each file's module registry stays on a worker's heap (about 60 MB a file): a worker past this is
  // replaced after its file, before garbage collection over gigabytes costs more than a fresh start.
  workerIdleMemoryLimit: '600MB',
};
