import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { type DataSource, type EntityManager } from 'typeorm';
import { CLOCK, type Clock } from '../common/clock.js';
import { PeriodicJob } from '../common/periodic-job.js';
import { EventOutbox, type EventType } from '../events/event-outbox.js';
import {
  type DueCertificate,
  TenantCertificateRepository,
} from './tenant-certificate.repository.js';

/** How often each instance looks; an event may come this late. */
export const certificateExpiryIntervalMs = 3_600_000;

/** `certificate.expiring` this long before the active certificate's notAfter. */
export const expiringNoticeMs = 30 * 86_400_000;

/** Rows per transaction, and transactions per run. */
const batch = 100;
const batchesPerRun = 10;

/**
 * Announces each active certificate once when it expires within 30 days (`certificate.expiring`) and
 * marks it expired once past its notAfter (`certificate.expired`), each batch one transaction with its
 * events (docs/certificates.md, Expiry).
 */
@Injectable()
export class CertificateExpiry implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('Certificates');
  private readonly job = new PeriodicJob(
    certificateExpiryIntervalMs,
    async () => {
      const { expiring, expired } = await this.runOnce();
      if (expiring + expired > 0) {
        this.logger.log({
          msg: `Certificates: ${expiring} expiring announced, ${expired} expired`,
          expiring,
          expired,
        });
      }
    },
    (error) => this.logger.warn(`Certificate expiry failed: ${(error as Error).message}`),
  );

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly certificates: TenantCertificateRepository,
    private readonly outbox: EventOutbox,
  ) {}

  onApplicationBootstrap(): void {
    this.job.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.job.stop();
  }

  /** One pass at the clock's time: expired first, so that one past its time is not announced. */
  async runOnce(): Promise<{ expiring: number; expired: number }> {
    const now = new Date(this.clock());
    const expired = await this.inBatches('certificate.expired', (manager) =>
      this.certificates.expireDue(manager, now, batch),
    );
    const horizon = new Date(now.getTime() + expiringNoticeMs);
    const expiring = await this.inBatches('certificate.expiring', (manager) =>
      this.certificates.announceExpiring(manager, now, horizon, batch),
    );
    return { expiring, expired };
  }

  private async inBatches(
    type: EventType,
    take: (manager: EntityManager) => Promise<DueCertificate[]>,
  ): Promise<number> {
    let total = 0;
    for (let round = 0; round < batchesPerRun; round++) {
      const count = await this.dataSource.transaction(async (manager) => {
        const rows = await take(manager);
        for (const row of rows) {
          await this.outbox.emit(manager, {
            type,
            tenantId: row.tenantId,
            data: { certificateId: row.id, notAfter: new Date(row.notAfter).toISOString() },
          });
        }
        return rows.length;
      });
      total += count;
      if (count < batch) break;
    }
    return total;
  }
}
