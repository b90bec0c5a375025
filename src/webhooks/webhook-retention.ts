import { PeriodicJob } from '../common/periodic-job.js';
import {
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import { Settings } from '../config/settings.js';
import { WebhookEventRepository } from './webhook-event.repository.js';

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
    private readonly events: WebhookEventRepository,
    private readonly settings: Settings,
  ) {}

  onApplicationBootstrap(): void {
    this.job.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.job.stop();
  }

  /** One batch; answers how many events it removed. */
  async prune(): Promise<number> {
    return this.events.prune(this.settings.WEBHOOK_RETENTION_DAYS, batch);
  }
}
