/**
 * System tests: real nginx, several service processes, outages. Three files at a time: each takes its
 * own free ports and temporary folders, and most of a file's time is spent waiting on processes.
 */
import base from './jest.config.js';

export default {
  ...base,
  testMatch: ['<rootDir>/test/system/**/*.system-spec.ts'],
  testTimeout: 180000,
  maxWorkers: 3,
};
