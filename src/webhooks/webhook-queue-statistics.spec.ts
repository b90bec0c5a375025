import { jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { type QueueStatistics } from './webhook-delivery.rows.js';
import { type WebhookDeliveryRepository } from './webhook-delivery.repository.js';
import { WebhookQueueStatistics } from './webhook-queue-statistics.js';

/** A queue as `read` has it each time; `underLock` is what the locked re-read finds (default: the same). */
function setUp(read: () => QueueStatistics, underLock?: () => QueueStatistics) {
  const analyzed: number[] = [];
  let now = 0;
  const repository: Pick<WebhookDeliveryRepository, 'queueStatistics' | 'analyzeIf'> = {
    queueStatistics: () => Promise.resolve(read()),
    analyzeIf: (outgrown) => {
      const queue = (underLock ?? read)();
      if (!outgrown(queue)) return Promise.resolve(undefined);
      analyzed.push(queue.pending);
      return Promise.resolve(queue);
    },
  };
  const statistics = new WebhookQueueStatistics(repository as WebhookDeliveryRepository, () => now);
  return { statistics, analyzed, advance: (ms: number) => (now += ms) };
}

describe('WebhookQueueStatistics', () => {
  beforeEach(() => {
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });
  afterEach(() => jest.restoreAllMocks());

  it.each([
    [999, 0, false],
    [1_000, 0, true],
    [4_000, 1_000, false],
    [4_001, 1_000, true],
    [20_000, 5_000, false],
  ])('with %i pending and %i counted, analyzes: %s', async (pending, counted, expected) => {
    const { statistics, analyzed } = setUp(() => ({ pending, counted, mayAnalyze: true }));
    expect(await statistics.check()).toBe(expected);
    expect(analyzed.length).toBe(expected ? 1 : 0);
  });

  it('does not analyze again what another instance analyzed just before it took the lock', async () => {
    const { statistics, analyzed } = setUp(
      () => ({ pending: 5_000, counted: 0, mayAnalyze: true }),
      () => ({ pending: 5_000, counted: 5_000, mayAnalyze: true }),
    );
    expect(await statistics.check()).toBe(false);
    expect(analyzed).toEqual([]);
  });

  it('does not analyze a table its role may not, and says so once', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const { statistics, analyzed } = setUp(() => ({
      pending: 5_000,
      counted: 0,
      mayAnalyze: false,
    }));
    expect(await statistics.check()).toBe(false);
    expect(await statistics.check()).toBe(false);
    expect(analyzed).toEqual([]);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0][0]).toMatchObject({ event: 'webhook.statistics-not-permitted' });
  });

  it('after a failed ANALYZE, tries again a minute later', async () => {
    let fail = true;
    const { statistics, analyzed, advance } = setUp(
      () => ({ pending: 5_000, counted: 0, mayAnalyze: true }),
      () => {
        if (fail) throw new Error('canceling statement due to statement timeout');
        return { pending: 5_000, counted: 0, mayAnalyze: true };
      },
    );
    await expect(statistics.check()).rejects.toThrow('statement timeout');
    fail = false;
    advance(59_999);
    expect(await statistics.check()).toBe(false);
    advance(1);
    expect(await statistics.check()).toBe(true);
    expect(analyzed).toEqual([5_000]);
  });

  it('after a failure, tries again a minute later, not every second', async () => {
    let fail = true;
    const { statistics, analyzed, advance } = setUp(() => {
      if (fail) throw new Error('canceling statement due to lock timeout');
      return { pending: 5_000, counted: 0, mayAnalyze: true };
    });
    await expect(statistics.check()).rejects.toThrow('lock timeout');
    fail = false;
    advance(59_000);
    expect(await statistics.check()).toBe(false);
    advance(1_000);
    expect(await statistics.check()).toBe(true);
    expect(analyzed).toEqual([5_000]);
  });
});
