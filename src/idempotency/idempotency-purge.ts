import { PeriodicJob } from '../common/periodic-job.js';
import {
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { type DataSource } from 'typeorm';

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

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

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
      const [row] = await this.dataSource.query<{ count: number }[]>(
        `WITH deleted AS (
           DELETE FROM idempotency_key WHERE id IN (
             SELECT id FROM idempotency_key WHERE expires_at <= now()
             LIMIT ${batchSize} FOR UPDATE SKIP LOCKED)
           RETURNING 1)
         SELECT count(*)::int AS count FROM deleted`,
      );
      const deleted = row?.count ?? 0;
      total += deleted;
      if (deleted < batchSize) return total;
    }
  }
}
