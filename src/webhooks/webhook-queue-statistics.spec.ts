import { jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { type QueueStatistics } from './webhook-delivery.rows.js';
import { type WebhookDeliveryRepository } from './webhook-delivery.repository.js';
import { WebhookQueueStatistics } from './webhook-queue-statistics.js';

function setUp(queue: QueueStatistics, anotherInstanceAnalyzing = false) {
  const analyzed: number[] = [];
  const repository: Pick<WebhookDeliveryRepository, 'queueStatistics' | 'analyze'> = {
    queueStatistics: () => Promise.resolve(queue),
    analyze: () => {
      analyzed.push(queue.pending);
      return Promise.resolve(!anotherInstanceAnalyzing);
    },
  };
  const statistics = new WebhookQueueStatistics(repository as WebhookDeliveryRepository);
  return { statistics, analyzed };
}

describe('WebhookQueueStatistics', () => {
  it.each([
    [999, 0, false],
    [1_000, 0, true],
    [4_000, 1_000, false],
    [4_001, 1_000, true],
    [20_000, 5_000, false],
  ])('with %i pending and %i counted, analyzes: %s', async (pending, counted, expected) => {
    const { statistics, analyzed } = setUp({ pending, counted, mayAnalyze: true });
    expect(await statistics.check()).toBe(expected);
    expect(analyzed.length).toBe(expected ? 1 : 0);
  });

  it('answers false when another instance is taking them', async () => {
    const { statistics, analyzed } = setUp({ pending: 5_000, counted: 0, mayAnalyze: true }, true);
    expect(await statistics.check()).toBe(false);
    expect(analyzed).toEqual([5_000]);
  });

  it('does not analyze a table its role may not, and says so once', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      const { statistics, analyzed } = setUp({ pending: 5_000, counted: 0, mayAnalyze: false });
      expect(await statistics.check()).toBe(false);
      expect(await statistics.check()).toBe(false);
      expect(analyzed).toEqual([]);
      expect(warn).toHaveBeenCalledTimes(1);
      expect(warn.mock.calls[0][0]).toMatchObject({ event: 'webhook.statistics-not-permitted' });
    } finally {
      warn.mockRestore();
    }
  });
});
