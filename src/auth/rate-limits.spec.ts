import { jest } from '@jest/globals';
import { loadSettings } from '../config/load-settings.js';
import { DomainException } from '../common/problem/domain.exception.js';
import { Metrics } from '../observability/metrics.js';
import { RateLimits } from './rate-limits.js';

/** The counters in memory, with the clock moved by hand (the limiter reads Date.now and timers). */
describe(RateLimits.name, () => {
  beforeEach(() => jest.useFakeTimers({ now: new Date('2026-01-01T00:00:00Z') }));
  afterEach(() => jest.useRealTimers());

  const limitsWith = (env: Record<string, string>) =>
    new RateLimits(
      loadSettings({
        NODE_ENV: 'test',
        DATABASE_URL: 'postgres://agent@127.0.0.1:5432/agent',
        AGENT_MASTER_KEY: Buffer.alloc(32, 7).toString('base64'),
        ...env,
      }),
      new Metrics(),
    );

  /** 'ok', or the refusal's Retry-After in seconds. */
  const attempt = (limits: RateLimits, id: string) =>
    limits.consume('ip', id, 'token').then(
      () => 'ok',
      (error: unknown) => {
        if (!(error instanceof DomainException)) throw error;
        expect(error.code).toBe('RATE_LIMITED');
        return `retry ${error.headers['Retry-After']}`;
      },
    );
  const attempts = async (limits: RateLimits, id: string, count: number) => {
    const outcomes: string[] = [];
    for (let i = 0; i < count; i++) outcomes.push(await attempt(limits, id));
    return outcomes;
  };

  it('admits a burst within a second, then refuses with Retry-After 1 until the next second', async () => {
    const limits = limitsWith({ RATE_LIMIT_IP_PER_MINUTE: '600', RATE_LIMIT_IP_BURST: '3' });
    expect(await attempts(limits, '192.0.2.1', 5)).toEqual([
      'ok',
      'ok',
      'ok',
      'retry 1',
      'retry 1',
    ]);
    // Another address has its own bucket.
    expect(await attempt(limits, '192.0.2.2')).toBe('ok');
    jest.advanceTimersByTime(1_000);
    expect(await attempts(limits, '192.0.2.1', 4)).toEqual(['ok', 'ok', 'ok', 'retry 1']);
    limits.onModuleDestroy();
  });

  it('holds the sustained rate of the minute across bursts; refused bursts cost none of it', async () => {
    const limits = limitsWith({ RATE_LIMIT_IP_PER_MINUTE: '5', RATE_LIMIT_IP_BURST: '2' });
    const outcomes: string[] = [];
    for (let second = 0; second < 4; second++) {
      outcomes.push(...(await attempts(limits, '192.0.2.1', 3)));
      jest.advanceTimersByTime(1_000);
    }
    // Two a second pass the burst; the fifth of the minute is the last, then the minute's wait.
    expect(outcomes).toEqual([
      'ok',
      'ok',
      'retry 1',
      'ok',
      'ok',
      'retry 1',
      'ok',
      'retry 58',
      'retry 1',
      'retry 57',
      'retry 57',
      'retry 1',
    ]);
    jest.advanceTimersByTime(57_000);
    expect(await attempt(limits, '192.0.2.1')).toBe('ok');
    limits.onModuleDestroy();
  });

  it('keeps the per-minute setting alone working when the burst is off', async () => {
    const limits = limitsWith({ RATE_LIMIT_IP_PER_MINUTE: '3', RATE_LIMIT_IP_BURST: '0' });
    expect(await attempts(limits, '192.0.2.1', 4)).toEqual(['ok', 'ok', 'ok', 'retry 60']);
    limits.onModuleDestroy();
  });
});
