import { type Caller } from './caller.js';

export interface VerifiedTokenCacheOptions {
  /** Most tokens kept; the oldest goes first when it is full. */
  maxEntries?: number;
  /** Longest a token is trusted without verifying it again, whatever its `exp` says. */
  maxAgeMs?: number;
  /** Seconds of clock skew tolerated on `exp`, as in the full verification. */
  clockToleranceSeconds?: number;
  now?: () => number;
}

interface Entry {
  /** The whole token: a lookup by its tail counts only if the whole text is the same. */
  token: string;
  caller: Caller;
  /** Milliseconds since the epoch after which the entry is gone. */
  until: number;
}

/**
 * How many of a token's last characters key the map: part of its signature, which differs between any two
 * tokens the issuer signed. Hashing a whole 1.4 kB token on every lookup cost about 2 µs a request; this
 * many characters cost 0.1 µs, and the comparison of the whole text after the lookup keeps the answer
 * exact (issue 6).
 */
const keyLength = 32;

function keyOf(token: string): string {
  return token.length > keyLength ? token.slice(-keyLength) : token;
}

/**
 * Access tokens that passed the full verification (signature, issuer, audience, expiry, type), by their
 * exact text, so that a caller sending the same token again is not verified again (issue 6: token
 * validation was a sixth of the CPU time of GET /did). A token that differs in any character is a
 * different token and gets the full verification, even if it ends like a remembered one. An entry ends
 * at the token's `exp` (plus the same tolerance) and after at most `maxAgeMs`: a key the issuer withdraws
 * stops being trusted at most `maxAgeMs` later than without this cache (which adds a minute to the 11
 * that key caching allows).
 */
export class VerifiedTokenCache {
  private readonly entries = new Map<string, Entry>();
  private readonly maxEntries: number;
  private readonly maxAgeMs: number;
  private readonly toleranceMs: number;
  private readonly now: () => number;

  constructor(options: VerifiedTokenCacheOptions = {}) {
    this.maxEntries = options.maxEntries ?? 1000;
    this.maxAgeMs = options.maxAgeMs ?? 60_000;
    this.toleranceMs = (options.clockToleranceSeconds ?? 5) * 1000;
    this.now = options.now ?? Date.now;
  }

  /** The caller of a token verified earlier and still within its lifetime, else undefined. */
  get(token: string): Caller | undefined {
    const key = keyOf(token);
    const entry = this.entries.get(key);
    if (entry === undefined || entry.token !== token) return undefined;
    if (this.now() >= entry.until) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.caller;
  }

  /** Keeps a token that was just verified; one without a numeric `exp` is not kept. */
  remember(token: string, caller: Caller, expiresAtSeconds: unknown): void {
    if (typeof expiresAtSeconds !== 'number' || !Number.isFinite(expiresAtSeconds)) return;
    const now = this.now();
    const until = Math.min(expiresAtSeconds * 1000 + this.toleranceMs, now + this.maxAgeMs);
    if (until < now) return;
    // Another token with the same ending (never two the issuer signed) is replaced, not trusted.
    const key = keyOf(token);
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done !== true) this.entries.delete(oldest.value);
    }
    this.entries.set(key, { token, caller, until });
  }

  get size(): number {
    return this.entries.size;
  }

  clear(): void {
    this.entries.clear();
  }
}
