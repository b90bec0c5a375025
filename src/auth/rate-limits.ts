import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { createRequire } from 'node:module';
import { type Redis } from 'ioredis';
import {
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import { Settings } from '../config/settings.js';
import { DomainException } from '../common/problem/domain.exception.js';
import { Metrics } from '../observability/metrics.js';
import { type RouteClass } from './in-flight.js';

export type RateLimitKey = 'caller' | 'ip';

/** The sustained limit counts a minute, the burst limit one second: both must admit a request. */
const windows = { minute: 60, second: 1 } as const;
type Window = keyof typeof windows;

/** ioredis, loaded only where Redis is configured: without it its modules stay out of memory. */
function loadRedis(): typeof Redis {
  return (createRequire(import.meta.url)('ioredis') as typeof import('ioredis')).Redis;
}

/**
 * Requests per caller (token subject) and per client address (requests without a verified token): at
 * most the burst within any one second and the sustained number within a minute, so that a minute's
 * allowance never arrives at once. Counted in memory or, with RATE_LIMIT_REDIS_URL, in Redis for every
 * instance at once.
 */
@Injectable()
export class RateLimits implements OnModuleDestroy {
  private readonly logger = new Logger('RateLimits');
  private readonly limiters: Record<RateLimitKey, Partial<Record<Window, RateLimiterAbstract>>>;
  private readonly redis: Redis | undefined;
  private lastStoreWarning = 0;

  constructor(
    settings: Settings,
    private readonly metrics: Metrics,
  ) {
    const redisUrl = settings.RATE_LIMIT_REDIS_URL;
    // ioredis queues nothing while Redis is away: the in-memory insurance counts meanwhile.
    this.redis =
      redisUrl === undefined
        ? undefined
        : new (loadRedis())(redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
    this.redis?.on('error', (error: Error) => this.warnStore(error));
    const limiter = (
      key: RateLimitKey,
      window: Window,
      points: number,
    ): RateLimiterAbstract | undefined => {
      if (points === 0) return undefined;
      // The minute's prefix is the one counters had before bursts were limited.
      const keyPrefix = window === 'minute' ? `agent-rl-${key}` : `agent-rl-${key}-${window}`;
      const options = { points, duration: windows[window], keyPrefix };
      const memory = new RateLimiterMemory(options);
      if (this.redis === undefined) return memory;
      return new RateLimiterRedis({
        ...options,
        storeClient: this.redis,
        insuranceLimiter: memory,
      });
    };
    this.limiters = {
      caller: {
        second: limiter('caller', 'second', settings.RATE_LIMIT_CALLER_BURST),
        minute: limiter('caller', 'minute', settings.RATE_LIMIT_CALLER_PER_MINUTE),
      },
      ip: {
        second: limiter('ip', 'second', settings.RATE_LIMIT_IP_BURST),
        minute: limiter('ip', 'minute', settings.RATE_LIMIT_IP_PER_MINUTE),
      },
    };
  }

  /**
   * Counts one request, the second's window first (a refused burst costs nothing of the minute);
   * throws 429 RATE_LIMITED with Retry-After when the key has none left in either.
   */
  async consume(key: RateLimitKey, id: string, routeClass: RouteClass = 'api'): Promise<void> {
    const { second, minute } = this.limiters[key];
    if (second !== undefined) await this.consumeIn(second, key, id, routeClass);
    if (minute !== undefined) await this.consumeIn(minute, key, id, routeClass);
  }

  private async consumeIn(
    limiter: RateLimiterAbstract,
    key: RateLimitKey,
    id: string,
    routeClass: RouteClass,
  ): Promise<void> {
    try {
      await limiter.consume(id);
    } catch (refusal) {
      if (!(refusal instanceof RateLimiterRes)) {
        // The store failed and so did its insurance: serve rather than refuse everyone.
        this.warnStore(refusal);
        return;
      }
      this.metrics.rateLimited.inc({ key });
      this.metrics.requestsShed.inc({ class: routeClass, reason: 'rate_limited' });
      const seconds = Math.max(1, Math.ceil(refusal.msBeforeNext / 1000));
      throw new DomainException(
        'RATE_LIMITED',
        `Too many requests from this ${key === 'caller' ? 'caller' : 'address'}; retry in ${seconds} s.`,
        undefined,
        { 'Retry-After': String(seconds) },
      );
    }
  }

  private warnStore(error: unknown): void {
    if (Date.now() - this.lastStoreWarning < 60_000) return;
    this.lastStoreWarning = Date.now();
    this.logger.warn(
      `Rate-limit store failing, counting in memory: ${error instanceof Error ? error.message : String(error)}`,
    );
  }

  onModuleDestroy(): void {
    this.redis?.disconnect();
  }
}
