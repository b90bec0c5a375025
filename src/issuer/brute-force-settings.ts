import { type RealmFile } from './realm-file.js';

/**
 * The realm's brute force detection (Keycloak's "Security defenses > Brute force detection"), with
 * Keycloak's defaults for absent fields (RealmManager.setupRealmDefaults; an absent strategy is MULTIPLE).
 */
export interface BruteForceSettings {
  /** `bruteForceProtected`: off unless the realm file turns it on. */
  enabled: boolean;
  permanentLockout: boolean;
  /** With permanentLockout: temporary lockouts before the permanent one (0: permanent at failureFactor). */
  maxTemporaryLockouts: number;
  strategy: 'MULTIPLE' | 'LINEAR';
  failureFactor: number;
  waitIncrementSeconds: number;
  maxFailureWaitSeconds: number;
  quickLoginCheckMilliSeconds: number;
  minimumQuickLoginWaitSeconds: number;
  /** "Failure reset time": a failure this long after the previous one starts the count again. */
  maxDeltaTimeSeconds: number;
}

const defaults = {
  maxTemporaryLockouts: 0,
  failureFactor: 30,
  waitIncrementSeconds: 60,
  maxFailureWaitSeconds: 900,
  quickLoginCheckMilliSeconds: 1000,
  minimumQuickLoginWaitSeconds: 60,
  maxDeltaTimeSeconds: 43_200,
} as const;

/** Reads and checks the fields; a wrong one stops the issuer at start-up, naming the field. */
export function bruteForceSettings(file: RealmFile): BruteForceSettings {
  const number = (field: keyof typeof defaults, minimum: number): number => {
    const value = file[field] ?? defaults[field];
    if (!Number.isSafeInteger(value) || value < minimum) {
      throw new Error(`The realm file's ${field} must be an integer of at least ${minimum}`);
    }
    return value;
  };
  const strategy = file.bruteForceStrategy ?? 'MULTIPLE';
  if (strategy !== 'MULTIPLE' && strategy !== 'LINEAR') {
    throw new Error("The realm file's bruteForceStrategy must be MULTIPLE or LINEAR");
  }
  for (const field of ['bruteForceProtected', 'permanentLockout'] as const) {
    if (file[field] !== undefined && typeof file[field] !== 'boolean') {
      throw new Error(`The realm file's ${field} must be true or false`);
    }
  }
  return {
    enabled: file.bruteForceProtected === true,
    permanentLockout: file.permanentLockout === true,
    maxTemporaryLockouts: number('maxTemporaryLockouts', 0),
    strategy,
    // Keycloak's console asks for at least one; the wait is a multiple of failures / failureFactor.
    failureFactor: number('failureFactor', 1),
    waitIncrementSeconds: number('waitIncrementSeconds', 0),
    maxFailureWaitSeconds: number('maxFailureWaitSeconds', 0),
    quickLoginCheckMilliSeconds: number('quickLoginCheckMilliSeconds', 0),
    minimumQuickLoginWaitSeconds: number('minimumQuickLoginWaitSeconds', 0),
    maxDeltaTimeSeconds: number('maxDeltaTimeSeconds', 0),
  };
}
