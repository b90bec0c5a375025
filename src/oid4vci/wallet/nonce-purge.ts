import {
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import { PeriodicJob } from '../../common/periodic-job.js';
import { NoncesService } from './nonces.service.js';

/** How often each instance deletes expired nonces; an expired one is refused before that anyway. */
export const noncePurgeIntervalMs = 600_000;

/** Deletes expired `c_nonce` rows every `noncePurgeIntervalMs` while the app runs. */
@Injectable()
export class NoncePurge implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Oid4vci');
  private readonly job = new PeriodicJob(
    noncePurgeIntervalMs,
    async () => {
      const count = await this.nonces.purgeExpired();
      if (count > 0) this.logger.log({ msg: `Purged ${count} expired nonces`, count });
    },
    (error) => this.logger.warn(`Purge of expired nonces failed: ${(error as Error).message}`),
  );

  constructor(private readonly nonces: NoncesService) {}

  onApplicationBootstrap(): void {
    this.job.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.job.stop();
  }
}
