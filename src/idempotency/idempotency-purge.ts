import { PeriodicJob } from '../common/periodic-job.js';
import {
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import { IdempotencyKeyRepository } from './idempotency-key.repository.js';

/** How often each instance purges. Expired keys count as absent before that (IdempotencyStore). */
export const idempotencyPurgeIntervalMs = 600_000;

/** Rows per DELETE, so that no statement runs long or holds many locks. */
const batchSize = 1000;

/**
 * Deletes idempotency keys and their sealed answers once past their 24 hours, in batches, every
 * `idempotencyPurgeIntervalMs` while the app runs. Instances purging at once skip each other's rows.
 */
@Injectable()
export class IdempotencyPurge implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Idempotency');
  private readonly job = new PeriodicJob(
    idempotencyPurgeIntervalMs,
    async () => {
      const count = await this.purgeExpired();
      if (count > 0) this.logger.log({ msg: `Purged ${count} expired idempotency keys`, count });
    },
    (error) =>
      this.logger.warn(`Purge of expired idempotency keys failed: ${(error as Error).message}`),
  );

  constructor(private readonly keys: IdempotencyKeyRepository) {}

  onApplicationBootstrap(): void {
    this.job.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.job.stop();
  }

  /** One run: deletes, batch after batch, every expired key; answers how many. */
  async purgeExpired(): Promise<number> {
    let total = 0;
    for (;;) {
      const deleted = await this.keys.deleteExpiredBatch(batchSize);
      total += deleted;
      if (deleted < batchSize) return total;
    }
  }
}
