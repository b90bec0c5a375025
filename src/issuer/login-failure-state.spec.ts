import { type BruteForceSettings } from './brute-force-settings.js';
import {
  afterFailure,
  isLockedOut,
  noFailures,
  type LoginFailureRow,
} from './login-failure-state.js';

/** The shipped realm: Keycloak's numbers, the quick-login check off. */
const shipped: BruteForceSettings = {
  enabled: true,
  permanentLockout: false,
  maxTemporaryLockouts: 0,
  strategy: 'MULTIPLE',
  failureFactor: 30,
  waitIncrementSeconds: 60,
  maxFailureWaitSeconds: 900,
  quickLoginCheckMilliSeconds: 0,
  minimumQuickLoginWaitSeconds: 60,
  maxDeltaTimeSeconds: 43_200,
};

const t0 = Date.parse('2026-01-01T00:00:00.250Z');
const at = (ms: number): Date => new Date(t0 + ms);
const seconds = (date: Date | null): number | null =>
  date === null ? null : (date.getTime() - t0) / 1000;

/** Seconds from the last failure to the end of the lockout; null without one. */
const waitAfter = (row: LoginFailureRow, lastMs: number): number | null =>
  row.failedLoginNotBefore === null
    ? null
    : (row.failedLoginNotBefore.getTime() - t0 - lastMs) / 1000;

/** `count` failures `gapMs` apart from no failures; the row after the last. */
function failures(settings: BruteForceSettings, count: number, gapMs: number): LoginFailureRow {
  let row = noFailures;
  for (let i = 0; i < count; i++) row = afterFailure(row, settings, at(i * gapMs), '10.0.0.7');
  return row;
}

describe('the state after a failed login (Keycloak 26 DefaultBruteForceProtector.failure)', () => {
  it.each([
    // failures, wait from the last failure's whole second (null: no lockout)
    [1, null],
    [29, null],
    [30, 60],
    [59, 60],
    [60, 120],
    [450, 900],
    [600, 900], // capped at maxFailureWaitSeconds
  ])('MULTIPLE, factor 30: after %i failures the wait is %p s', (count, wait) => {
    // 1000 s apart: each failure comes after the previous lockout ended.
    const row = failures(shipped, count, 1_000_000);
    expect(row.numFailures).toBe(count);
    expect(waitAfter(row, (count - 1) * 1_000_000)).toBe(wait === null ? null : wait - 0.25);
    expect(row.permanentlyLockedAt).toBeNull();
  });

  it('counts lockouts, not failures below the factor', () => {
    expect(failures(shipped, 29, 1000).numTemporaryLockouts).toBe(0);
    expect(failures(shipped, 31, 1_000_000).numTemporaryLockouts).toBe(2);
  });

  it.each([
    [1, null],
    [2, null],
    [3, 60],
    [4, 120],
    [20, 900],
  ])('LINEAR, factor 3: after %i failures the wait is %p s', (count, wait) => {
    const row = failures({ ...shipped, strategy: 'LINEAR', failureFactor: 3 }, count, 1_000_000);
    expect(waitAfter(row, (count - 1) * 1_000_000)).toBe(wait === null ? null : wait - 0.25);
  });

  it('a failure too quick after the previous one waits minimumQuickLoginWaitSeconds, not counted as a lockout', () => {
    const settings = { ...shipped, quickLoginCheckMilliSeconds: 1000 };
    const first = afterFailure(noFailures, settings, at(0), 'a');
    expect(first.failedLoginNotBefore).toBeNull();
    const quick = afterFailure(first, settings, at(500), 'a');
    expect(seconds(quick.failedLoginNotBefore)).toBe(59.75);
    expect(quick.numTemporaryLockouts).toBe(0);
    const slow = afterFailure(first, settings, at(1500), 'a');
    expect(slow.failedLoginNotBefore).toBeNull();
  });

  it('starts the count again after maxDeltaTimeSeconds, forgetting lockouts', () => {
    const locked = failures(shipped, 30, 1_000_000);
    const later = afterFailure(locked, shipped, at(29_000_000 + 43_200_001), 'a');
    expect(later).toMatchObject({
      numFailures: 1,
      numTemporaryLockouts: 0,
      failedLoginNotBefore: null,
    });
    const within = afterFailure(locked, shipped, at(29_000_000 + 43_200_000), 'a');
    expect(within.numFailures).toBe(31);
  });

  it('permanentLockout without temporary lockouts locks for good at the factor and never forgets', () => {
    const settings = { ...shipped, permanentLockout: true, failureFactor: 3 };
    const two = failures(settings, 2, 100_000_000);
    expect(two).toMatchObject({
      numFailures: 2,
      permanentlyLockedAt: null,
      failedLoginNotBefore: null,
    });
    const three = afterFailure(two, settings, at(500_000_000), 'a');
    expect(three.permanentlyLockedAt).toEqual(at(500_000_000));
    expect(three.failedLoginNotBefore).toBeNull();
  });

  it('permanentLockout after maxTemporaryLockouts temporary ones', () => {
    const settings = {
      ...shipped,
      permanentLockout: true,
      maxTemporaryLockouts: 1,
      failureFactor: 2,
    };
    const first = failures(settings, 2, 1_000_000);
    expect(first).toMatchObject({ numTemporaryLockouts: 1, permanentlyLockedAt: null });
    expect(seconds(first.failedLoginNotBefore)).toBe(1000 + 59.75);
    // The third failure is the second lockout: one more than allowed.
    const second = afterFailure(first, settings, at(2_000_000), 'a');
    expect(second.numTemporaryLockouts).toBe(2);
    expect(second.permanentlyLockedAt).toEqual(at(2_000_000));
    // The lockout that turned permanent sets no wait of its own.
    expect(second.failedLoginNotBefore).toEqual(first.failedLoginNotBefore);
  });

  it('keeps the address, cut to the column', () => {
    expect(afterFailure(noFailures, shipped, at(0), 'x'.repeat(100)).lastIpFailure).toHaveLength(
      64,
    );
  });

  it('is locked out while the wait lasts and for good once permanently locked', () => {
    const locked = failures(shipped, 30, 0);
    expect(isLockedOut(locked, at(59_000))).toBe(true);
    expect(isLockedOut(locked, at(59_750))).toBe(false);
    expect(isLockedOut(noFailures, at(0))).toBe(false);
    expect(isLockedOut({ ...noFailures, permanentlyLockedAt: at(0) }, at(1e12))).toBe(true);
  });
});
