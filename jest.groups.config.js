import base, { unitSpecs } from './jest.config.js';

/**
 * `npm test`: the unit specs, and the e2e suites in groups (test/groups/e2e-groups.ts), each group one
 * Jest file, so that the service's module tree is loaded once per group rather than once per suite.
 * `npm run test:file -- test/<name>.e2e-spec.ts` (jest.config.js) runs any suite on its own.
 */
export default {
  ...base,
  testMatch: [...unitSpecs, '<rootDir>/test/groups/*.e2e-group.ts'],
  testSequencer: '<rootDir>/test/groups/sequencer.mjs',
};
