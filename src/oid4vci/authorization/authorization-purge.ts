import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import { CLOCK, type Clock } from '../../common/clock.js';
import { PeriodicJob } from '../../common/periodic-job.js';
import { AuthorizationRepository } from './authorization.repository.js';

/** How often each instance deletes ended authorizations; an expired one is refused before that anyway. */
export const authorizationPurgeIntervalMs = 600_000;
const batchSize = 1000;

/** Deletes authorizations past their time (any state) every `authorizationPurgeIntervalMs`. */
@Injectable()
export class AuthorizationPurge implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Oid4vci');
  private readonly job = new PeriodicJob(
    authorizationPurgeIntervalMs,
    async () => {
      const count = await this.purgeExpired();
      if (count > 0) this.logger.log({ msg: `Purged ${count} ended authorizations`, count });
    },
    (error) =>
      this.logger.warn(`Purge of ended authorizations failed: ${(error as Error).message}`),
  );

  constructor(
    private readonly authorizations: AuthorizationRepository,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  onApplicationBootstrap(): void {
    this.job.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.job.stop();
  }

  /** Deletes the expired authorizations in batches; answers how many. */
  async purgeExpired(): Promise<number> {
    const now = new Date(this.clock());
    let total = 0;
    for (;;) {
      const deleted = await this.authorizations.deleteExpiredBatch(now, batchSize);
      total += deleted;
      if (deleted < batchSize) return total;
    }
  }
}
