import {
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import { PeriodicJob } from '../common/periodic-job.js';
import { WebhookDeliveryRepository } from './webhook-delivery.repository.js';

const checkEveryMs = 1_000;
/** New statistics when at least this many deliveries are pending... */
const outgrownAt = 1_000;
/** ...and more than this many times as many as the last ANALYZE or VACUUM counted. */
const outgrownBy = 4;
/** The pending deliveries are counted up to this: a queue counted larger is planned for well enough. */
const countedUpTo = 20_000;

/**
 * Keeps PostgreSQL's statistics of the delivery queue close to its size. The claim is planned from the
 * statistics of the last ANALYZE, which autovacuum takes a minute or more after a change; a burst of
 * events (thousands of changes committing together) drains in seconds, and a claim planned for an
 * almost empty queue reads every due delivery each time (docs/webhooks.md, "Bursts"). So every second,
 * when many more deliveries are pending than the statistics counted, one instance takes new ones.
 */
@Injectable()
export class WebhookQueueStatistics implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Webhooks');
  private warnedPrivilege = false;
  private readonly job = new PeriodicJob(
    checkEveryMs,
    async () => {
      await this.check();
    },
    (error) =>
      this.logger.warn({ event: 'webhook.statistics-failed', error: (error as Error).message }),
  );

  constructor(private readonly deliveries: WebhookDeliveryRepository) {}

  onApplicationBootstrap(): void {
    this.job.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.job.stop();
  }

  /** One check; answers whether this instance took new statistics. */
  async check(): Promise<boolean> {
    const { pending, counted, mayAnalyze } = await this.deliveries.queueStatistics(countedUpTo);
    if (pending < outgrownAt || pending <= counted * outgrownBy) return false;
    if (!mayAnalyze) {
      if (!this.warnedPrivilege) {
        this.warnedPrivilege = true;
        this.logger.warn({
          event: 'webhook.statistics-not-permitted',
          msg: "The service's database role does not own webhook_delivery and may not ANALYZE it: after a burst of events the queue drains at autovacuum's pace",
        });
      }
      return false;
    }
    const analyzed = await this.deliveries.analyze();
    if (analyzed) this.logger.log({ event: 'webhook.statistics-taken', pending, counted });
    return analyzed;
  }
}
