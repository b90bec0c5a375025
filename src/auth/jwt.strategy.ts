import { Inject, Injectable } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { PassportStrategy } from '@nestjs/passport';
import { type AddressInfo, type Server } from 'node:net';
import { type Request } from 'express';
import { ExtractJwt, Strategy } from 'passport-jwt';
import { APP_CONFIG } from '../config/config.token.js';
import { type AppConfig } from '../config/app-config.js';
import { type Caller } from './caller.js';
import { RealmSigningKeys } from './realm-signing-keys.js';
import { VerifiedTokenCache } from './verified-token-cache.js';

/** Seconds of clock skew tolerated on exp, nbf and iat between the issuer and this service. */
export const clockToleranceSeconds = 5;

const fromAuthorizationHeader = ExtractJwt.fromAuthHeaderAsBearerToken();
const extracted = Symbol('bearer token');
type WithToken = Request & { [extracted]?: string | null };

/**
 * How a bearer token is taken from a request (passport-jwt's extractor), here and wherever a verified
 * token is looked up again. Taken once per request: the guard, passport-jwt and validate() all ask, and
 * each extraction would run a regular expression over the whole header and make a new string, whose hash
 * the verified-token cache would compute again (issue 6).
 */
export function bearerToken(request: Request): string | null {
  const remembered = (request as WithToken)[extracted];
  if (remembered !== undefined) return remembered;
  const token = fromAuthorizationHeader(request);
  (request as WithToken)[extracted] = token;
  return token;
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

/** Thrown by validate() for a well-signed token that is not an access token. */
export class NotAnAccessTokenError extends Error {}

/**
 * Access tokens as api.md requires them: RS256 by a key of the realm's JWKS (RealmSigningKeys: fetched
 * over HTTP, cached, refetched at most 10 times a minute when an unknown `kid` appears), exact issuer, our
 * audience, `typ` Bearer, not expired.
 */
@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, 'jwt') {
  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    adapterHost: HttpAdapterHost,
    @Inject(VerifiedTokenCache) private readonly verifiedTokens: VerifiedTokenCache,
  ) {
    // With the embedded issuer and no AUTH_JWKS_URL, fetch our own keys over loopback once we listen.
    const jwksUri = () => {
      if (config.authJwksUrlExplicit || !config.authIssuerEmbedded) return config.authJwksUrl;
      const server = adapterHost.httpAdapter.getHttpServer() as Server;
      const address = server.address() as AddressInfo;
      return `http://127.0.0.1:${address.port}${new URL(config.authIssuerUrl).pathname}/protocol/openid-connect/certs`;
    };
    const signingKeys = new RealmSigningKeys({ jwksUri });
    super({
      jwtFromRequest: bearerToken,
      passReqToCallback: true,
      secretOrKeyProvider: (_request, rawJwt: string, done) => {
        signingKeys.keyFor(rawJwt, (error, key) =>
          // jsonwebtoken 9 takes a KeyObject as it is; @types/passport-jwt only knows strings and Buffers.
          done(error, key === null ? undefined : (key as unknown as string)),
        );
      },
      algorithms: ['RS256'],
      issuer: config.authIssuerUrl,
      audience: config.authAudience,
      ignoreExpiration: false,
      jsonWebTokenOptions: { clockTolerance: clockToleranceSeconds },
    });
  }

  /** Called by passport-jwt once the signature and the registered claims have been checked. */
  validate(request: Request, payload: AccessTokenClaims): Caller {
    const caller = callerOf(payload);
    const token = bearerToken(request);
    if (token !== null) this.verifiedTokens.remember(token, caller, payload.exp);
    return caller;
  }
}

/** Who the claims of a verified token describe; frozen, since a cached caller serves many requests. */
function callerOf(payload: AccessTokenClaims): Caller {
  // Refresh (typ Refresh) and ID tokens (typ ID) are signed by the same realm: refuse them here.
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
