import { type BruteForceSettings } from './brute-force-settings.js';

/** A user's failed logins, as the issuer_login_failure row keeps them. */
export interface LoginFailureRow {
  numFailures: number;
  numTemporaryLockouts: number;
  lastFailure: Date | null;
  lastIpFailure: string | null;
  failedLoginNotBefore: Date | null;
  permanentlyLockedAt: Date | null;
}

/** A row after a failure: it has a last one. */
export type CountedFailures = LoginFailureRow & { lastFailure: Date; lastIpFailure: string };

/** The state of a user without failures. */
export const noFailures: LoginFailureRow = {
  numFailures: 0,
  numTemporaryLockouts: 0,
  lastFailure: null,
  lastIpFailure: null,
  failedLoginNotBefore: null,
  permanentlyLockedAt: null,
};

/** Locked out at `now`: refused before the password is looked at, and no failure counted. */
export function isLockedOut(row: LoginFailureRow, now: Date): boolean {
  return (
    row.permanentlyLockedAt !== null ||
    (row.failedLoginNotBefore !== null && row.failedLoginNotBefore > now)
  );
}

/**
 * The state after one more failure at `now` from `address`, as Keycloak 26's
 * DefaultBruteForceProtector.failure computes it: the count starts again after maxDeltaTimeSeconds;
 * the wait grows with the count (MULTIPLE: increment × ⌊failures / factor⌋, LINEAR: increment × (1 +
 * failures − factor)); below the factor, a failure within quickLoginCheckMilliSeconds of the last one
 * waits minimumQuickLoginWaitSeconds; waits are capped at maxFailureWaitSeconds; with permanentLockout,
 * more than maxTemporaryLockouts lockouts (or, with none allowed, failureFactor failures) lock for good.
 */
export function afterFailure(
  old: LoginFailureRow,
  settings: BruteForceSettings,
  now: Date,
  address: string,
): CountedFailures {
  const permanentOnly = settings.permanentLockout && settings.maxTemporaryLockouts === 0;
  const sinceLastMs = old.lastFailure === null ? 0 : now.getTime() - old.lastFailure.getTime();
  const reset = !permanentOnly && sinceLastMs > settings.maxDeltaTimeSeconds * 1000;
  const failures = reset ? 1 : old.numFailures + 1;
  const earlierLockouts = reset ? 0 : old.numTemporaryLockouts;
  const earlierNotBefore = reset ? null : old.failedLoginNotBefore;

  const strategyWait = permanentOnly
    ? 0
    : settings.strategy === 'LINEAR'
      ? settings.waitIncrementSeconds * (1 + failures - settings.failureFactor)
      : settings.waitIncrementSeconds * Math.floor(failures / settings.failureFactor);
  const quick =
    strategyWait <= 0 &&
    old.lastFailure !== null &&
    sinceLastMs < settings.quickLoginCheckMilliSeconds;
  const wait = quick ? settings.minimumQuickLoginWaitSeconds : strategyWait;
  const capped =
    !settings.permanentLockout || settings.maxTemporaryLockouts > 0
      ? Math.min(settings.maxFailureWaitSeconds, wait)
      : wait;
  const lockouts = earlierLockouts + (wait > 0 && !quick ? 1 : 0);
  const setsNotBefore =
    wait > 0 && (quick || !settings.permanentLockout || lockouts <= settings.maxTemporaryLockouts);
  const locksForGood =
    settings.permanentLockout &&
    (lockouts > settings.maxTemporaryLockouts ||
      (settings.maxTemporaryLockouts === 0 && failures >= settings.failureFactor));

  return {
    numFailures: failures,
    numTemporaryLockouts: lockouts,
    lastFailure: now,
    lastIpFailure: address.slice(0, 64),
    // Keycloak counts the wait from the failure's whole second.
    failedLoginNotBefore: setsNotBefore
      ? new Date((Math.floor(now.getTime() / 1000) + capped) * 1000)
      : earlierNotBefore,
    permanentlyLockedAt: old.permanentlyLockedAt ?? (locksForGood ? now : null),
  };
}
