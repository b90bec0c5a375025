import Sequencer from '@jest/test-sequencer';

/**
 * Jest's order (failed first, then the longest known, then the largest file), with the groups of suites
 * ahead of the unit specs: a group file is small, so on a first run (no timings yet, as in CI) Jest
 * would start the longest work last.
 */
export default class GroupsFirst extends Sequencer {
  async sort(tests) {
    const sorted = await super.sort(tests);
    const isGroup = (test) => /\.(e2e|external)-group\.ts$/.test(test.path);
    return [...sorted.filter(isGroup), ...sorted.filter((test) => !isGroup(test))];
  }
}
