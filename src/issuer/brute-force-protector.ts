import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ISSUER_CLOCK, type Clock } from './issuer-clock.js';
import { Realm, type RealmUserView } from './realm.js';

/** What a failed login left behind. */
export interface LoginFailureState {
  numFailures: number;
  failedLoginNotBefore: Date | null;
  permanentlyLockedAt: Date | null;
}

const columns =
  'num_failures, num_temporary_lockouts, last_failure, last_ip_failure, failed_login_not_before, permanently_locked_at';

/**
 * The next state of a user's row after one more failure, from the previous one (`old`), as Keycloak 26's
 * DefaultBruteForceProtector.failure computes it: the count starts again after maxDeltaTimeSeconds; the
 * wait grows with the count (MULTIPLE: increment × ⌊failures / factor⌋, LINEAR: increment × (1 +
 * failures − factor)); below the factor, a failure within quickLoginCheckMilliSeconds of the last one
 * waits minimumQuickLoginWaitSeconds; waits are capped at maxFailureWaitSeconds; with permanentLockout,
 * more than maxTemporaryLockouts lockouts (or, with none allowed, failureFactor failures) lock for good.
 */
const nextState = `
  SELECT counted.failures, lockouts.temporary_lockouts, s.now, s.address,
    CASE WHEN locking.sets_not_before
      THEN to_timestamp((floor(extract(epoch FROM s.now)) + waited.capped)::double precision)
      ELSE counted.not_before END,
    COALESCE(old.permanently_locked_at, CASE WHEN s.permanent AND (
      lockouts.temporary_lockouts > s.max_temporary_lockouts
      OR (s.max_temporary_lockouts = 0 AND counted.failures >= s.failure_factor)) THEN s.now END)
  FROM (SELECT $3::timestamptz AS now, $4::varchar AS address, $5::int AS failure_factor,
          $6::bigint AS wait_increment, $7::bigint AS max_wait, $8::bigint AS quick_wait,
          $9::bigint AS quick_check_ms, $10::bigint AS max_delta, $11::boolean AS permanent,
          $12::int AS max_temporary_lockouts, $13::boolean AS linear) AS s,
    LATERAL (SELECT s.permanent AND s.max_temporary_lockouts = 0 AS permanent_only,
      CASE WHEN old.last_failure IS NULL THEN 0
        ELSE extract(epoch FROM s.now - old.last_failure) * 1000 END AS delta_ms) AS since,
    LATERAL (SELECT NOT since.permanent_only AND since.delta_ms > s.max_delta * 1000 AS reset) AS expiry,
    LATERAL (SELECT CASE WHEN expiry.reset THEN 1 ELSE old.num_failures + 1 END AS failures,
      CASE WHEN expiry.reset THEN 0 ELSE old.num_temporary_lockouts END AS temporary_lockouts,
      CASE WHEN expiry.reset THEN NULL ELSE old.failed_login_not_before END AS not_before) AS counted,
    LATERAL (SELECT CASE WHEN since.permanent_only THEN 0
      WHEN s.linear THEN s.wait_increment * (1 + counted.failures - s.failure_factor)
      ELSE s.wait_increment * (counted.failures / s.failure_factor) END AS wait) AS strategy,
    LATERAL (SELECT strategy.wait <= 0 AND old.last_failure IS NOT NULL
      AND since.delta_ms < s.quick_check_ms AS quick) AS pace,
    LATERAL (SELECT CASE WHEN pace.quick THEN s.quick_wait ELSE strategy.wait END AS wait) AS chosen,
    LATERAL (SELECT CASE WHEN NOT s.permanent OR s.max_temporary_lockouts > 0
      THEN LEAST(s.max_wait, chosen.wait) ELSE chosen.wait END AS capped) AS waited,
    LATERAL (SELECT counted.temporary_lockouts
      + CASE WHEN chosen.wait > 0 AND NOT pace.quick THEN 1 ELSE 0 END AS temporary_lockouts) AS lockouts,
    LATERAL (SELECT chosen.wait > 0 AND (pace.quick OR NOT s.permanent
      OR lockouts.temporary_lockouts <= s.max_temporary_lockouts) AS sets_not_before) AS locking`;

/**
 * One failure counted in one statement, unless the user is locked out (then no row comes back and
 * nothing changes, as Keycloak counts no failure during a lockout). Concurrent attempts of one user, on
 * any instance, queue on the row and each computes from the one before, so none is lost and the one
 * that reaches the lockout shuts out those behind it.
 */
const reserveFailure = `
  INSERT INTO issuer_login_failure AS f (user_id, username, ${columns})
  SELECT $1, $2, next.*
  FROM (SELECT 0 AS num_failures, 0 AS num_temporary_lockouts, NULL::timestamptz AS last_failure,
          NULL::timestamptz AS failed_login_not_before, NULL::timestamptz AS permanently_locked_at) AS old,
    LATERAL (${nextState}) AS next
  ON CONFLICT (user_id) DO UPDATE SET (username, ${columns}) = (
    SELECT EXCLUDED.username, next.*
    FROM (SELECT f.num_failures, f.num_temporary_lockouts, f.last_failure,
            f.failed_login_not_before, f.permanently_locked_at) AS old,
      LATERAL (${nextState}) AS next)
  WHERE f.permanently_locked_at IS NULL
    AND (f.failed_login_not_before IS NULL OR f.failed_login_not_before <= $3)
  RETURNING num_failures, failed_login_not_before, permanently_locked_at`;

/** A password check the protector lets happen, its failure counted already. */
export interface AllowedAttempt {
  readonly at: Date;
  /** The user's state if the password is wrong; undefined while detection is off. */
  readonly ifWrong: LoginFailureState | undefined;
}

/**
 * Keycloak's brute force detection for the embedded issuer's password logins (direct grant and login
 * form share the counter), with the realm's settings; does nothing while bruteForceProtected is off.
 */
@Injectable()
export class BruteForceProtector {
  private readonly logger = new Logger(BruteForceProtector.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly realm: Realm,
    @Inject(ISSUER_CLOCK) private readonly clock: Clock,
  ) {}

  /**
   * Before the password is checked: undefined if the user is locked out (refuse without checking),
   * else the attempt, counted as a failure in advance. So a burst of concurrent attempts gets no more
   * checks than the same attempts in sequence: the one that reaches the factor locks out the rest
   * before their passwords are looked at, and a right password among them cannot slip in after it.
   */
  async reserve(user: RealmUserView, address: string): Promise<AllowedAttempt | undefined> {
    const settings = this.realm.bruteForce;
    const at = new Date(this.clock());
    if (!settings.enabled) return { at, ifWrong: undefined };
    const [row] = await this.dataSource.query<
      {
        num_failures: number;
        failed_login_not_before: Date | null;
        permanently_locked_at: Date | null;
      }[]
    >(reserveFailure, [
      user.id,
      user.username,
      at,
      address.slice(0, 64),
      settings.failureFactor,
      settings.waitIncrementSeconds,
      settings.maxFailureWaitSeconds,
      settings.minimumQuickLoginWaitSeconds,
      settings.quickLoginCheckMilliSeconds,
      settings.maxDeltaTimeSeconds,
      settings.permanentLockout,
      settings.maxTemporaryLockouts,
      settings.strategy === 'LINEAR',
    ]);
    if (row === undefined) return undefined;
    return {
      at,
      ifWrong: {
        numFailures: row.num_failures,
        failedLoginNotBefore: row.failed_login_not_before,
        permanentlyLockedAt: row.permanently_locked_at,
      },
    };
  }

  /** A wrong password: its failure was counted by `reserve`; logs a lockout it started (never the password). */
  failedLogin(
    user: RealmUserView,
    address: string,
    attempt: AllowedAttempt,
    requestId?: string,
  ): void {
    if (attempt.ifWrong !== undefined)
      this.logLockout(user, address, attempt.at, attempt.ifWrong, requestId);
  }

  /**
   * A right password: forgets the failures, as Keycloak does, the one `reserve` counted for it with
   * them. A permanent lock is deleted only if this attempt's reservation (or one after it) set it: a
   * user locked before would not have been checked.
   */
  async successfulLogin(user: RealmUserView): Promise<void> {
    if (!this.realm.bruteForce.enabled) return;
    await this.dataSource.query('DELETE FROM issuer_login_failure WHERE user_id = $1', [user.id]);
  }

  /** A login refused because the user is locked out: the answer does not say so, the log does. */
  logRefused(user: RealmUserView, address: string, requestId?: string): void {
    this.logger.log({
      msg: `Login of ${user.username} from ${address} refused: locked out by brute force detection`,
      reqId: requestId,
    });
  }

  private logLockout(
    user: RealmUserView,
    address: string,
    now: Date,
    state: LoginFailureState,
    requestId: string | undefined,
  ): void {
    const failures = `${state.numFailures} failed login${state.numFailures === 1 ? '' : 's'}`;
    if (state.permanentlyLockedAt?.getTime() === now.getTime()) {
      this.logger.warn({
        msg: `${user.username} locked out permanently after ${failures}, the last from ${address}`,
        reqId: requestId,
      });
    } else if (state.failedLoginNotBefore !== null && state.failedLoginNotBefore > now) {
      this.logger.warn({
        msg: `${user.username} locked out until ${state.failedLoginNotBefore.toISOString()} after ${failures}, the last from ${address}`,
        reqId: requestId,
      });
    }
  }
}
