import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { type DataSource } from 'typeorm';
import { CLOCK, type Clock } from '../../common/clock.js';
import { PeriodicJob } from '../../common/periodic-job.js';
import { EventOutbox } from '../../events/event-outbox.js';
import { KeyVault } from '../../secrets/key-vault.js';
import { sealClaims } from './offer-claims.js';
import { offerLimits } from './offer-limits.js';
import { OfferRepository } from './offer.repository.js';

/** How often each instance ends offers past their time. They read as expired before that. */
export const offerExpiryIntervalMs = 60_000;

/**
 * Marks open offers past their time as expired and drops their claims, a bounded batch per
 * transaction with its `oid4vci.offer.expired` events; instances running at once skip each other's rows.
 * Before, it seals the claims that offers made before claims were sealed still hold in the clear
 * (migrations/1795799000000-offer-claims-sealed.ts: SQL cannot seal), the same way.
 */
@Injectable()
export class OfferExpiry implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Oid4vciOffers');
  private readonly job = new PeriodicJob(
    offerExpiryIntervalMs,
    async () => {
      const sealed = await this.sealUnsealedClaims();
      if (sealed > 0) {
        this.logger.log({ msg: `Sealed the claims of ${sealed} credential offers`, count: sealed });
      }
      const count = await this.expireDue();
      if (count > 0) this.logger.log({ msg: `Expired ${count} credential offers`, count });
    },
    (error) => this.logger.warn(`Expiry of credential offers failed: ${(error as Error).message}`),
  );

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(KeyVault) private readonly vault: KeyVault,
    private readonly offers: OfferRepository,
    private readonly outbox: EventOutbox,
  ) {}

  onApplicationBootstrap(): void {
    this.job.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.job.stop();
  }

  /** At most `expiryBatchesPerRun` batches; answers how many offers' claims it sealed. */
  async sealUnsealedClaims(): Promise<number> {
    let total = 0;
    for (let batch = 0; batch < offerLimits.expiryBatchesPerRun; batch++) {
      const sealed = await this.dataSource.transaction(async (manager) => {
        const rows = await this.offers.unsealedClaims(manager, offerLimits.expiryBatch);
        if (rows.length > 0) {
          await this.offers.storeSealedClaims(manager, {
            ids: rows.map((row) => row.id),
            boxes: rows.map((row) => sealClaims(this.vault, row.id, row.claims)),
            masterKeyId: this.vault.masterKeyId,
          });
        }
        return rows.length;
      });
      total += sealed;
      if (sealed < offerLimits.expiryBatch) break;
    }
    return total;
  }

  /** One run: at most `expiryBatchesPerRun` batches; answers how many offers it ended. */
  async expireDue(): Promise<number> {
    let total = 0;
    for (let batch = 0; batch < offerLimits.expiryBatchesPerRun; batch++) {
      const ended = await this.dataSource.transaction(async (manager) => {
        const rows = await this.offers.expireDue(
          manager,
          new Date(this.clock()),
          offerLimits.expiryBatch,
        );
        for (const row of rows) {
          await this.outbox.emit(manager, {
            type: 'oid4vci.offer.expired',
            tenantId: row.tenantId,
            data: { offerId: row.id, configurationId: row.configurationId },
          });
        }
        return rows.length;
      });
      total += ended;
      if (ended < offerLimits.expiryBatch) break;
    }
    return total;
  }
}
