import { PeriodicJob } from '../common/periodic-job.js';
import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { CLOCK, type Clock } from '../common/clock.js';
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
    @InjectDataSource() private readonly dataSource: DataSource,
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
      sessions: await this.deleteExpired(
        'issuer_session',
        'ended_at IS NOT NULL OR last_refreshed_at < $1 OR started_at < $2',
        [before(this.realm.ssoSessionIdleTimeout), before(this.realm.ssoSessionMaxLifespan)],
      ),
      codes: await this.deleteExpired('issuer_code', 'expires_at < $1', [new Date(now)]),
      loginPages: await this.deleteExpired('issuer_auth_session', 'expires_at < $1', [
        new Date(now),
      ]),
      // Past its expiry a revoked access token is refused anyway.
      revokedTokens: await this.deleteExpired('issuer_revoked_token', 'expires_at < $1', [
        new Date(now),
      ]),
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
      return this.deleteExpired('issuer_login_failure', 'permanently_locked_at IS NULL', []);
    }
    if (settings.permanentLockout && settings.maxTemporaryLockouts === 0) return 0;
    return this.deleteExpired(
      'issuer_login_failure',
      'permanently_locked_at IS NULL AND last_failure < $1',
      [new Date(this.clock() - settings.maxDeltaTimeSeconds * 1000)],
    );
  }

  /**
   * Deletes up to `batchSize` rows at a time. The batch is picked once, by an uncorrelated subquery
   * (an InitPlan: run once per statement) whose rows are then found by their ctid (a TID scan), so the
   * work is bounded whatever the planner believes of the table. `key IN (SELECT ... LIMIT ... FOR
   * UPDATE)` was planned, when the statistics said the table was empty, as a semi-join that re-ran
   * the subquery for every row of the table, locking again each time: seconds for a backlog.
   * The rows are locked, so their ctids stay put until the DELETE. Table and condition are constants
   * of this class, never input.
   */
  private async deleteExpired(
    table: string,
    condition: string,
    values: unknown[],
  ): Promise<number> {
    let total = 0;
    for (;;) {
      const [row] = await this.dataSource.query<{ count: number }[]>(
        `WITH deleted AS (
           DELETE FROM "${table}" WHERE ctid = ANY(ARRAY(
             SELECT ctid FROM "${table}" WHERE ${condition}
             LIMIT ${batchSize} FOR UPDATE SKIP LOCKED))
           RETURNING 1)
         SELECT count(*)::int AS count FROM deleted`,
        values,
      );
      const deleted = row?.count ?? 0;
      total += deleted;
      if (deleted < batchSize) return total;
    }
  }
}
