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
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => this.runScheduled(), idempotencyPurgeIntervalMs);
    // The schedule alone never keeps the process alive.
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
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

  private runScheduled(): void {
    // A run that outlasts the interval is not overtaken by the next.
    if (this.running !== undefined) return;
    this.running = this.purgeExpired()
      .then((count) => {
        if (count > 0) this.logger.log({ msg: `Purged ${count} expired idempotency keys`, count });
      })
      .catch((error: unknown) => {
        this.logger.warn(`Purge of expired idempotency keys failed: ${(error as Error).message}`);
      })
      .finally(() => {
        this.running = undefined;
      });
  }
}
