import { PeriodicJob } from '../common/periodic-job.js';
import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import { CLOCK, type Clock } from '../common/clock.js';
import { IssuerAuthSessionRepository } from './issuer-auth-session.repository.js';
import { IssuerCodeRepository } from './issuer-code.repository.js';
import { IssuerLoginFailureRepository } from './issuer-login-failure.repository.js';
import { IssuerRevokedTokenRepository } from './issuer-revoked-token.repository.js';
import { IssuerSessionRepository } from './issuer-session.repository.js';
import { Realm } from './realm.js';

/** How often each instance purges: Keycloak's default interval for its own expiry tasks. */
export const purgeIntervalMs = 900_000;

/** Rows per DELETE, so that no statement runs long or holds many locks. */
const batchSize = 1000;

export interface PurgeCounts {
  sessions: number;
  codes: number;
  loginPages: number;
  revokedTokens: number;
}

/**
 * Deletes the issuer's sessions, codes, pending login pages and revoked token ids once past their expiry (by the issuer's
 * clock and the realm's current lifetimes), and login failures Keycloak would forget, every
 * `purgeIntervalMs` while the app runs. Several
 * instances on one database may purge at once: each batch skips the rows another one has locked.
 *
 * Each batch is picked once, by an uncorrelated subquery (an InitPlan: run once per statement) whose
 * rows are then found by their ctid (a TID scan), so the work is bounded whatever the planner believes
 * of the table. `key IN (SELECT ... LIMIT ... FOR UPDATE)` was planned, when the statistics said the
 * table was empty, as a semi-join that re-ran the subquery for every row of the table, locking again
 * each time: seconds for a backlog. The rows are locked, so their ctids stay put until the DELETE.
 */
@Injectable()
export class IssuerPurge implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(IssuerPurge.name);
  private readonly job = new PeriodicJob(
    purgeIntervalMs,
    async () => {
      const counts = {
        ...(await this.purgeExpired()),
        loginFailures: await this.purgeLoginFailures(),
      };
      if (Object.values(counts).some((count) => count > 0)) {
        this.logger.log({ msg: 'Purged expired issuer rows', ...counts });
      }
    },
    (error) =>
      this.logger.warn(
        `Purge of expired issuer rows failed: ${error instanceof Error ? error.message : String(error)}`,
      ),
  );

  constructor(
    private readonly sessions: IssuerSessionRepository,
    private readonly codes: IssuerCodeRepository,
    private readonly loginPages: IssuerAuthSessionRepository,
    private readonly revokedTokens: IssuerRevokedTokenRepository,
    private readonly loginFailures: IssuerLoginFailureRepository,
    private readonly realm: Realm,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  get scheduled(): boolean {
    return this.job.scheduled;
  }

  onApplicationBootstrap(): void {
    this.job.start();
  }

  async onModuleDestroy(): Promise<void> {
    await this.job.stop();
  }

  /** One run: deletes, batch after batch, every row that has expired. */
  async purgeExpired(): Promise<PurgeCounts> {
    const now = this.clock();
    const before = (seconds: number) => new Date(now - seconds * 1000);
    return {
      // Ended, idle past ssoSessionIdleTimeout or older than ssoSessionMaxLifespan: no longer active.
      sessions: await inBatches((limit) =>
        this.sessions.deleteInactiveBatch(
          before(this.realm.ssoSessionIdleTimeout),
          before(this.realm.ssoSessionMaxLifespan),
          limit,
        ),
      ),
      codes: await inBatches((limit) => this.codes.deleteExpiredBatch(new Date(now), limit)),
      loginPages: await inBatches((limit) =>
        this.loginPages.deleteExpiredBatch(new Date(now), limit),
      ),
      // Past its expiry a revoked access token is refused anyway.
      revokedTokens: await inBatches((limit) =>
        this.revokedTokens.deleteExpiredBatch(new Date(now), limit),
      ),
    };
  }

  /**
   * Login failures past maxDeltaTimeSeconds since the last one (Keycloak's LoginFailureUtils), all of
   * them while brute force detection is off; never a permanent lock, nor anything when permanent lockout
   * has no temporary lockouts (Keycloak keeps those failures for good).
   */
  async purgeLoginFailures(): Promise<number> {
    const settings = this.realm.bruteForce;
    if (!settings.enabled) {
      return inBatches((limit) => this.loginFailures.deleteUnlockedBatch(limit));
    }
    if (settings.permanentLockout && settings.maxTemporaryLockouts === 0) return 0;
    const before = new Date(this.clock() - settings.maxDeltaTimeSeconds * 1000);
    return inBatches((limit) => this.loginFailures.deleteStaleBatch(before, limit));
  }
}

/** Runs a batch delete until a batch deletes fewer than `batchSize` rows; answers how many in all. */
async function inBatches(deleteBatch: (limit: number) => Promise<number>): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = await deleteBatch(batchSize);
    total += deleted;
    if (deleted < batchSize) return total;
  }
}
