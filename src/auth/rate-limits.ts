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

export type RateLimitKey = 'caller' | 'ip';

const windowSeconds = 60;

/** ioredis, loaded only where Redis is configured: without it its modules stay out of memory. */
function loadRedis(): typeof Redis {
  return (createRequire(import.meta.url)('ioredis') as typeof import('ioredis')).Redis;
}

/**
 * Requests a minute per caller (token subject) and per client address (requests without a verified
 * token), counted in memory or, with RATE_LIMIT_REDIS_URL, in Redis for every instance at once.
 */
@Injectable()
export class RateLimits implements OnModuleDestroy {
  private readonly logger = new Logger('RateLimits');
  private readonly limiters: Partial<Record<RateLimitKey, RateLimiterAbstract>> = {};
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
    const limiter = (key: RateLimitKey, points: number): RateLimiterAbstract | undefined => {
      if (points === 0) return undefined;
      const options = { points, duration: windowSeconds, keyPrefix: `agent-rl-${key}` };
      const memory = new RateLimiterMemory(options);
      if (this.redis === undefined) return memory;
      return new RateLimiterRedis({
        ...options,
        storeClient: this.redis,
        insuranceLimiter: memory,
      });
    };
    this.limiters.caller = limiter('caller', settings.RATE_LIMIT_CALLER_PER_MINUTE);
    this.limiters.ip = limiter('ip', settings.RATE_LIMIT_IP_PER_MINUTE);
  }

  /** Counts one request; throws 429 RATE_LIMITED with Retry-After when the key has none left. */
  async consume(key: RateLimitKey, id: string): Promise<void> {
    const limiter = this.limiters[key];
    if (limiter === undefined) return;
    try {
      await limiter.consume(id);
    } catch (refusal) {
      if (!(refusal instanceof RateLimiterRes)) {
        // The store failed and so did its insurance: serve rather than refuse everyone.
        this.warnStore(refusal);
        return;
      }
      this.metrics.rateLimited.inc({ key });
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
