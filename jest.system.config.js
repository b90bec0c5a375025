/** System tests: real nginx, several service processes, outages. Run one file at a time. */
import base from './jest.config.js';

export default {
  ...base,
  testMatch: ['<rootDir>/test/system/**/*.system-spec.ts'],
  testTimeout: 180000,
  maxWorkers: 1,
};
