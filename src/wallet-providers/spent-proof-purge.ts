import {
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import { PeriodicJob } from '../common/periodic-job.js';
import { SpentProofs } from './spent-proofs.js';

/** How often each instance deletes expired proof ids; an expired one is taken over before that. */
export const spentProofPurgeIntervalMs = 600_000;

/** Deletes expired `spent_proof_jti` rows every `spentProofPurgeIntervalMs` while the app runs. */
@Injectable()
export class SpentProofPurge implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('WalletProviders');
  private readonly job = new PeriodicJob(
    spentProofPurgeIntervalMs,
    async () => {
      const count = await this.spent.purgeExpired();
      if (count > 0) this.logger.log({ msg: `Purged ${count} expired proof ids`, count });
    },
    (error) => this.logger.warn(`Purge of expired proof ids failed: ${(error as Error).message}`),
  );

  constructor(private readonly spent: SpentProofs) {}

  onApplicationBootstrap(): void {
    this.job.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.job.stop();
  }
}
