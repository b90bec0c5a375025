import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import { CLOCK, type Clock } from '../../common/clock.js';
import { PeriodicJob } from '../../common/periodic-job.js';
import { Settings } from '../../config/settings.js';
import { PresentationRequestRepository } from './presentation-request.repository.js';
import { requestLimits } from './request-limits.js';

/** How often each instance ends requests past their time and erases claims past their retention. */
export const requestHousekeepingIntervalMs = 60_000;

/**
 * The presentation requests' two chores, bounded batches each (docs/oid4vp.md, Retention): pending
 * requests past their time become `expired` (they read so before), and the disclosed claims of requests
 * that ended more than OID4VP_CLAIMS_RETENTION_SECONDS ago are erased, the outcome kept. Instances
 * running at once skip each other's rows.
 */
@Injectable()
export class RequestHousekeeping implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Oid4vpRequests');
  private readonly job = new PeriodicJob(
    requestHousekeepingIntervalMs,
    async () => {
      const expired = await this.expireDue();
      const erased = await this.eraseClaims();
      if (expired + erased > 0) {
        this.logger.log({
          msg: `Expired ${expired} presentation requests, erased the claims of ${erased}`,
          expired,
          erased,
        });
      }
    },
    (error) =>
      this.logger.warn(`Housekeeping of presentation requests failed: ${(error as Error).message}`),
  );

  constructor(
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly settings: Settings,
    private readonly requests: PresentationRequestRepository,
  ) {}

  onApplicationBootstrap(): void {
    this.job.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.job.stop();
  }

  /** One run: pending requests past their time become expired; answers how many. */
  expireDue(): Promise<number> {
    return batched(() => this.requests.expireDue(new Date(this.clock()), requestLimits.jobBatch));
  }

  /** One run: the claims of requests ended longer ago than the retention time go; answers how many. */
  eraseClaims(): Promise<number> {
    const now = this.clock();
    const endedBefore = new Date(now - this.settings.OID4VP_CLAIMS_RETENTION_SECONDS * 1000);
    return batched(() =>
      this.requests.eraseClaims(endedBefore, new Date(now), requestLimits.jobBatch),
    );
  }
}

/** At most `jobBatchesPerRun` batches, stopping at the first that is not full. */
async function batched(batch: () => Promise<number>): Promise<number> {
  let total = 0;
  for (let run = 0; run < requestLimits.jobBatchesPerRun; run++) {
    const count = await batch();
    total += count;
    if (count < requestLimits.jobBatch) break;
  }
  return total;
}
