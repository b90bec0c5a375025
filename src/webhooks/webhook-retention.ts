import { PeriodicJob } from '../common/periodic-job.js';
import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { type DataSource } from 'typeorm';
import { APP_CONFIG } from '../config/config.token.js';
import { type AppConfig } from '../config/app-config.js';

const pruneEveryMs = 10 * 60 * 1000;
const batch = 5_000;

/**
 * Removes events older than WEBHOOK_RETENTION_DAYS once none of their deliveries is pending; their
 * deliveries and attempt log go with them. One instance at a time, in batches.
 */
@Injectable()
export class WebhookRetention implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Webhooks');
  private readonly job = new PeriodicJob(
    pruneEveryMs,
    async () => {
      await this.prune();
    },
    (error) => this.logger.warn({ event: 'webhook.prune-failed', error: (error as Error).message }),
  );

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.job.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.job.stop();
  }

  /** One batch; answers how many events it removed. */
  async prune(): Promise<number> {
    return this.dataSource.transaction(async (manager) => {
      const [lock] = await manager.query<{ locked: boolean }[]>(
        `SELECT pg_try_advisory_xact_lock(hashtext('webhook-retention')) AS locked`,
      );
      if (lock?.locked !== true) return 0;
      const removed = await manager.query<unknown>(
        `DELETE FROM webhook_event WHERE id IN (
           SELECT e.id FROM webhook_event e
            WHERE e.created_at < now() - make_interval(days => $1)
              AND NOT EXISTS (SELECT 1 FROM webhook_delivery d
                               WHERE d.event_id = e.id AND d.state = 'pending')
            LIMIT $2)`,
        [this.config.webhooks.retentionDays, batch],
      );
      return Array.isArray(removed) && typeof removed[1] === 'number' ? removed[1] : 0;
    });
  }
}
