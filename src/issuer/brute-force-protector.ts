import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { CLOCK, type Clock } from '../common/clock.js';
import { IssuerLoginFailureRepository } from './issuer-login-failure.repository.js';
import {
  afterFailure,
  isLockedOut,
  noFailures,
  type LoginFailureRow,
} from './login-failure-state.js';
import { Realm, type RealmUserView } from './realm.js';

/** What a failed login left behind. */
export type LoginFailureState = Pick<
  LoginFailureRow,
  'numFailures' | 'failedLoginNotBefore' | 'permanentlyLockedAt'
>;

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
    private readonly failures: IssuerLoginFailureRepository,
    private readonly realm: Realm,
    @Inject(CLOCK) private readonly clock: Clock,
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
    const ifWrong = await this.dataSource.transaction(async (manager) => {
      // Concurrent attempts of one user, on any instance, queue on the row lock and each computes from
      // the one before, so none is lost and the one that reaches the lockout shuts out those behind it.
      for (;;) {
        const row = await this.failures.findLocked(manager, user.id);
        // Keycloak counts no failure during a lockout.
        if (row !== null && isLockedOut(row, at)) return undefined;
        const next = afterFailure(row ?? noFailures, settings, at, address);
        const values = { ...next, userId: user.id, username: user.username };
        if (row !== null) {
          await this.failures.update(manager, values);
          return next;
        }
        // Unless another attempt made the row first: then lock it and count from it.
        if (await this.failures.insertIfAbsent(manager, values)) return next;
      }
    });
    return ifWrong === undefined ? undefined : { at, ifWrong };
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
    await this.failures.delete(user.id);
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
