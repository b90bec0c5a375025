import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import { CLOCK, type Clock } from '../common/clock.js';
import { PeriodicJob } from '../common/periodic-job.js';
import { type QueueStatistics } from './webhook-delivery.rows.js';
import { WebhookDeliveryRepository } from './webhook-delivery.repository.js';

const checkEveryMs = 1_000;
/** After a failed check or ANALYZE (a lock autovacuum holds, a timeout), the next try waits this long. */
const pauseAfterFailureMs = 60_000;
/** New statistics when at least this many deliveries are pending... */
const outgrownAt = 1_000;
/** ...and more than this many times as many as the last ANALYZE or VACUUM counted. */
const outgrownBy = 4;
/** The pending deliveries are counted up to this: a queue counted larger is planned for well enough. */
const countedUpTo = 20_000;

const outgrown = ({ pending, counted }: QueueStatistics) =>
  pending >= outgrownAt && pending > counted * outgrownBy;

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
  private pausedUntil = 0;
  private readonly job = new PeriodicJob(
    checkEveryMs,
    async () => {
      await this.check();
    },
    (error) =>
      this.logger.warn({ event: 'webhook.statistics-failed', error: (error as Error).message }),
  );

  constructor(
    private readonly deliveries: WebhookDeliveryRepository,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  onApplicationBootstrap(): void {
    this.job.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.job.stop();
  }

  /** One check; answers whether this instance took new statistics. */
  async check(): Promise<boolean> {
    if (this.clock() < this.pausedUntil) return false;
    try {
      const queue = await this.deliveries.queueStatistics(countedUpTo);
      if (!outgrown(queue)) return false;
      if (!queue.mayAnalyze) {
        this.warnOnce();
        return false;
      }
      const analyzed = await this.deliveries.analyzeIf(outgrown, countedUpTo);
      if (analyzed === undefined) return false;
      const { pending, counted } = analyzed;
      this.logger.log({ event: 'webhook.statistics-taken', pending, counted });
      return true;
    } catch (error) {
      this.pausedUntil = this.clock() + pauseAfterFailureMs;
      throw error;
    }
  }

  private warnOnce(): void {
    if (this.warnedPrivilege) return;
    this.warnedPrivilege = true;
    this.logger.warn({
      event: 'webhook.statistics-not-permitted',
      msg: "The service's database role may not ANALYZE webhook_delivery (it owns neither the table nor the database, nor has MAINTAIN on it): after a burst of events the queue drains at autovacuum's pace",
    });
  }
}
