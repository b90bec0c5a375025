import { Injectable } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { PassportStrategy } from '@nestjs/passport';
import { type Request } from 'express';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { JwksClient, type SigningKey } from 'jwks-rsa';
import { LRUCache } from 'lru-cache';
import { createPublicKey, type KeyObject } from 'node:crypto';
import { type AddressInfo, type Server } from 'node:net';
import { ExtractJwt, Strategy, type SecretOrKeyProvider } from 'passport-jwt';
import { systemClock, type Clock } from '../common/clock.js';
import { Settings } from '../config/settings.js';
import { Metrics } from '../observability/metrics.js';
import { type Caller } from './caller.js';

/**
 * How a bearer token is checked (api.md, Authentication), top to bottom:
 * 1. extraction: `Authorization: Bearer <token>` (RFC 6750 §2.1);
 * 2. remembered: the same text verified moments ago gives its caller again (VerifiedTokens);
 * 3. header and key: the `kid` names a key of the realm's JWKS, which jwks-rsa fetches, caches for 10
 *    minutes and fetches again at most 10 times a minute when an unknown kid appears;
 * 4. signature and registered claims: RS256 only, the exact issuer, our audience, exp and nbf with 5 s
 *    of clock tolerance (passport-jwt with jsonwebtoken);
 * 5. our claims: `typ` Bearer (refresh and ID tokens are refused) and `sub`; realm roles and
 *    `tenant_ids` become the Caller that guards and controllers see.
 * AccessTokenGuard turns each refusal into the answer the API promises (401, or 503 while the issuer's
 * keys cannot be fetched).
 */

/** Seconds of clock skew tolerated on exp, nbf and iat between the issuer and this service. */
export const clockToleranceSeconds = 5;

/** 1. The token of a request, or null when it sends none. */
export const bearerToken: (request: Request) => string | null =
  ExtractJwt.fromAuthHeaderAsBearerToken();

/**
 * 2. Tokens that passed every check below, by their exact text: a caller sending the same token again
 * is not verified again. An entry ends at the token's `exp` (plus the tolerance) and after a minute at
 * most, so a key the issuer withdraws stops being trusted at most a minute later than without it.
 */
export class VerifiedTokens {
  private readonly tokens: LRUCache<string, Caller>;
  private readonly maxAgeMs: number;
  private readonly now: Clock;

  /** `now` is the service's CLOCK (auth.module.ts). */
  constructor(options: { max?: number; maxAgeMs?: number; now?: Clock } = {}) {
    this.now = options.now ?? systemClock;
    this.tokens = new LRUCache({
      max: options.max ?? 1_000,
      ttlResolution: 0,
      perf: { now: this.now },
    });
    this.maxAgeMs = options.maxAgeMs ?? 60_000;
  }

  get(token: string): Caller | undefined {
    return this.tokens.get(token);
  }

  /** Keeps a token that was just verified; one without a numeric `exp` is not kept. */
  remember(token: string, caller: Caller, expiresAtSeconds: unknown): void {
    if (typeof expiresAtSeconds !== 'number' || !Number.isFinite(expiresAtSeconds)) return;
    const left = expiresAtSeconds * 1000 + clockToleranceSeconds * 1000 - this.now();
    // lru-cache keeps an entry while its age is at most `ttl`; jsonwebtoken refuses from exp on.
    const ttl = Math.min(left, this.maxAgeMs) - 1;
    if (ttl > 0) this.tokens.set(token, caller, { ttl });
  }

  get size(): number {
    return this.tokens.size;
  }
}

/** The issuer's keys cannot be fetched (network failure or an error status): not the token's fault. */
export class IssuerUnavailableError extends Error {
  override name = 'IssuerUnavailableError';
}

/** How long after a failed key fetch a refused (rate-limited) refetch still means the issuer is away. */
const outageMemoryMs = 60_000;

/**
 * 3. The key for a token, by its header, from jwks-rsa. Only RS256 tokens whose payload is a JSON object
 * are looked up: anything else could never pass, so it must not make the service fetch keys. An unknown
 * kid is the token's fault (no key: 401); a failed fetch, or a refetch refused while fetches are failing,
 * is the issuer's (IssuerUnavailableError: 503).
 */
function realmKeys(jwksUri: () => string, metrics: Metrics): SecretOrKeyProvider<Request> {
  let client: JwksClient | undefined;
  let lastFetchFailure = 0;
  const classify = (error: unknown): Error | null => {
    const name = error instanceof Error ? error.name : undefined;
    const message = error instanceof Error ? error.message : String(error);
    if (name === 'SigningKeyNotFoundError') return null;
    if (name === 'JwksRateLimitError') {
      const outage = Date.now() - lastFetchFailure < outageMemoryMs;
      return outage ? new IssuerUnavailableError(message) : null;
    }
    lastFetchFailure = Date.now();
    return new IssuerUnavailableError(message);
  };
  // jsonwebtoken would parse jwks-rsa's PEM on every verification (4 times the RSA check itself); the
  // parsed key lives exactly as long as jwks-rsa keeps its SigningKey (docs/performance.md).
  const parsed = new WeakMap<SigningKey, KeyObject>();
  const parsedKeyOf = (key: SigningKey): KeyObject => {
    let keyObject = parsed.get(key);
    if (keyObject === undefined) {
      keyObject = createPublicKey(key.getPublicKey());
      parsed.set(key, keyObject);
    }
    return keyObject;
  };
  return (_request: Request, rawJwt: string, done) => {
    let kid: unknown;
    try {
      const header = decodeProtectedHeader(rawJwt);
      decodeJwt(rawJwt);
      if (header.alg !== 'RS256') return done(null, undefined);
      kid = header.kid;
    } catch {
      return done(null, undefined);
    }
    // The JWKS address of the embedded issuer is only known once the server listens.
    client ??= new CountedJwksClient(metrics, {
      jwksUri: jwksUri(),
      cache: true,
      cacheMaxEntries: 10,
      cacheMaxAge: 10 * 60 * 1000,
      rateLimit: true,
      jwksRequestsPerMinute: 10,
      timeout: 5_000,
    });
    client.getSigningKey(typeof kid === 'string' ? kid : undefined).then(
      (key) => done(null, parsedKeyOf(key) as unknown as string),
      (error: unknown) => done(classify(error), undefined),
    );
  };
}

/** jwks-rsa's client, counting each fetch of the key set (its cache answers the rest). */
class CountedJwksClient extends JwksClient {
  constructor(
    private readonly metrics: Metrics,
    options: ConstructorParameters<typeof JwksClient>[0],
  ) {
    super(options);
  }

  override async getKeys(): Promise<unknown> {
    try {
      const keys = await super.getKeys();
      this.metrics.jwksFetches.inc({ outcome: 'fetched' });
      return keys;
    } catch (error) {
      this.metrics.jwksFetches.inc({ outcome: 'failed' });
      throw error;
    }
  }
}

interface AccessTokenClaims {
  typ?: unknown;
  exp?: unknown;
  sub?: unknown;
  azp?: unknown;
  preferred_username?: unknown;
  realm_access?: { roles?: unknown };
  tenant_ids?: unknown;
}

/** Thrown for a well-signed token that is not an access token. */
export class NotAnAccessTokenError extends Error {}

@Injectable()
export class AccessTokenStrategy extends PassportStrategy(Strategy, 'jwt') {
  constructor(
    settings: Settings,
    adapterHost: HttpAdapterHost,
    private readonly verifiedTokens: VerifiedTokens,
    metrics: Metrics,
  ) {
    // With the embedded issuer and no AUTH_JWKS_URL, our own keys are fetched over loopback.
    const jwksUri = () => {
      if (settings.AUTH_JWKS_URL !== undefined || !settings.authIssuerEmbedded)
        return settings.authJwksUrl;
      const address = (adapterHost.httpAdapter.getHttpServer() as Server).address() as AddressInfo;
      return `http://127.0.0.1:${address.port}${new URL(settings.authIssuerUrl).pathname}/protocol/openid-connect/certs`;
    };
    super({
      jwtFromRequest: bearerToken,
      passReqToCallback: true,
      secretOrKeyProvider: realmKeys(jwksUri, metrics),
      algorithms: ['RS256'],
      issuer: settings.authIssuerUrl,
      audience: settings.AUTH_AUDIENCE,
      ignoreExpiration: false,
      // exp and nbf against the system time: passport-jwt fixes jsonwebtoken's options (no clockTimestamp).
      jsonWebTokenOptions: { clockTolerance: clockToleranceSeconds },
    });
  }

  /** 5. Called by passport-jwt once the signature and the registered claims have been checked. */
  validate(request: Request, payload: AccessTokenClaims): Caller {
    const caller = callerOf(payload);
    const token = bearerToken(request);
    if (token !== null) this.verifiedTokens.remember(token, caller, payload.exp);
    return caller;
  }
}

/** Who the claims of a verified token describe; frozen, since a remembered caller serves many requests. */
function callerOf(payload: AccessTokenClaims): Caller {
  if (payload.typ !== 'Bearer' || typeof payload.sub !== 'string')
    throw new NotAnAccessTokenError();
  const roles = payload.realm_access?.roles;
  const tenantIds = payload.tenant_ids;
  return Object.freeze({
    subject: payload.sub,
    username:
      typeof payload.preferred_username === 'string' ? payload.preferred_username : undefined,
    clientId: typeof payload.azp === 'string' ? payload.azp : undefined,
    roles: Object.freeze(
      Array.isArray(roles) ? roles.filter((role): role is string => typeof role === 'string') : [],
    ),
    tenantIds: Object.freeze(
      (Array.isArray(tenantIds)
        ? tenantIds
        : typeof tenantIds === 'string'
          ? [tenantIds]
          : []
      ).filter((id): id is string => typeof id === 'string'),
    ),
  });
}
