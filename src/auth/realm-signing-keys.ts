import { Logger } from '@nestjs/common';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { JwksClient } from 'jwks-rsa';
import { createPublicKey, type KeyObject } from 'node:crypto';

/** The issuer's keys cannot be fetched (network failure or an error status): not the token's fault. */
export class IssuerUnavailableError extends Error {
  override name = 'IssuerUnavailableError';
}

const logger = new Logger('RealmSigningKeys');

function parsePublicKey(pem: string): KeyObject | null {
  try {
    return createPublicKey(pem);
  } catch {
    return null;
  }
}

/**
 * Hands the key on from a promise callback: should passport's side throw, the failure is logged rather
 * than left as an unhandled rejection, which would end the process.
 */
function answer(
  done: (error: Error | null, key: KeyObject | null) => void,
  error: Error | null,
  key: KeyObject | null,
): void {
  try {
    done(error, key);
  } catch (thrown) {
    logger.error(thrown instanceof Error ? thrown : String(thrown));
  }
}

/** How long after a failed key fetch a rate-limited refetch still counts as the issuer being away. */
const outageMemoryMs = 60_000;

/** The only algorithm access tokens may use (api.md); a token naming another gets no key. */
const acceptedAlgorithm = 'RS256';

export interface RealmSigningKeysOptions {
  /** Where the realm publishes its keys; asked for when the first key is needed. */
  jwksUri: () => string;
  /** Longest a parsed key is used before jwks-rsa is asked for it again. */
  keyMaxAgeMs?: number;
  now?: () => number;
}

/**
 * The realm's signing keys, by `kid`, for verifying access tokens. jwks-rsa fetches the JWKS, keeps it for
 * 10 minutes and refetches at most 10 times a minute when an unknown `kid` appears. Each key it returns is
 * parsed once and kept for a minute, so that a request reads one header and looks up one map instead of
 * decoding the whole token and rebuilding a PEM for jsonwebtoken to parse again (issue 6: a fifth of the
 * CPU time of a request with a token not seen before). A key the issuer withdraws stops being trusted
 * when jwks-rsa's copy expires, as before, plus at most `keyMaxAgeMs`.
 */
export class RealmSigningKeys {
  private client: JwksClient | undefined;
  private readonly keys = new Map<string, { key: KeyObject; until: number }>();
  private readonly headers = new Map<string, { alg?: unknown; kid?: unknown } | null>();
  private readonly keyMaxAgeMs: number;
  private readonly now: () => number;
  private lastFetchFailure = 0;

  constructor(private readonly options: RealmSigningKeysOptions) {
    this.keyMaxAgeMs = options.keyMaxAgeMs ?? 60_000;
    this.now = options.now ?? Date.now;
  }

  /**
   * The key that verifies `rawJwt`, in passport-jwt's callback form: null when the token names no usable
   * key (jsonwebtoken then refuses it), IssuerUnavailableError while the keys cannot be fetched.
   */
  keyFor(rawJwt: string, done: (error: Error | null, key: KeyObject | null) => void): void {
    const header = this.headerOf(rawJwt);
    if (header === null || header.alg !== acceptedAlgorithm) return done(null, null);
    const kid = header.kid as string | undefined;
    // Keycloak names every key; a token without a kid gets jwks-rsa's one-key fallback, not a slot here.
    const cacheable = typeof kid === 'string' && kid !== '';
    const known = cacheable ? this.keys.get(kid) : undefined;
    if (known !== undefined && this.now() < known.until) return done(null, known.key);
    // Before anything is fetched: a payload that is not a JSON object cannot pass, whatever its kid.
    try {
      decodeJwt(rawJwt);
    } catch {
      return done(null, null);
    }
    this.jwks()
      .getSigningKey(kid)
      .then(
        (signingKey) => {
          this.lastFetchFailure = 0;
          const key = parsePublicKey(signingKey.getPublicKey());
          if (key !== null && cacheable) {
            // The issuer's JWKS is the only source of kids here, so the map stays small.
            if (this.keys.size >= 20) this.keys.clear();
            this.keys.set(kid, { key, until: this.now() + this.keyMaxAgeMs });
          }
          answer(done, null, key);
        },
        (error: unknown) => answer(done, this.classify(error), null),
      );
  }

  /**
   * The token's header, null if it has none. Every token of the realm's current key has the same header
   * text, so a few decoded headers are kept by their text: decoding one with jose cost about 8 µs, a tenth
   * of what a new token adds to a request besides its signature check (issue 6). A header text not seen
   * before is decoded; past 16 of them the kept ones are dropped, so forged headers cannot grow the map.
   */
  private headerOf(rawJwt: string): { alg?: unknown; kid?: unknown } | null {
    const dot = rawJwt.indexOf('.');
    const text = dot < 0 ? rawJwt : rawJwt.slice(0, dot);
    const known = this.headers.get(text);
    if (known !== undefined) return known;
    let header: { alg?: unknown; kid?: unknown } | null;
    try {
      const { alg, kid } = decodeProtectedHeader(rawJwt);
      header = { alg, kid };
    } catch {
      header = null;
    }
    if (this.headers.size >= 16) this.headers.clear();
    this.headers.set(text, header);
    return header;
  }

  /**
   * jwks-rsa reports an unknown kid, a rate-limited refetch and a failed fetch as errors of different
   * names; only the last two (while the issuer is away) are an outage rather than a bad token.
   */
  private classify(error: unknown): Error | null {
    const name = error instanceof Error ? error.name : undefined;
    const message = error instanceof Error ? error.message : String(error);
    if (name === 'SigningKeyNotFoundError') return null;
    if (name === 'JwksRateLimitError') {
      const outage = this.now() - this.lastFetchFailure < outageMemoryMs;
      return outage ? new IssuerUnavailableError(message) : null;
    }
    this.lastFetchFailure = this.now();
    return new IssuerUnavailableError(message);
  }

  private jwks(): JwksClient {
    this.client ??= new JwksClient({
      jwksUri: this.options.jwksUri(),
      cache: true,
      cacheMaxEntries: 10,
      cacheMaxAge: 10 * 60 * 1000,
      rateLimit: true,
      jwksRequestsPerMinute: 10,
      timeout: 5000,
    });
    return this.client;
  }
}
