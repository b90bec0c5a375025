import { Inject, Injectable } from '@nestjs/common';
import { jwtVerify, type JWTPayload } from 'jose';
import { authenticateClient } from './client-authentication.js';
import { type Form } from './issuer-http.js';
import { CLOCK, type Clock } from '../common/clock.js';
import { IssuerKeys } from './issuer-keys.js';
import { IssuerSessions } from './issuer-sessions.js';
import { ISSUER_URL } from './issuer-url.js';
import { OAuthError } from '../common/oauth-error.js';
import { type RealmClient } from './realm-file.js';
import { Realm } from './realm.js';
import { RevokedTokens } from './revoked-tokens.js';

type TokenClaims = JWTPayload & { typ?: unknown; azp?: unknown; sid?: unknown };

/** The `token_type_hint`s Keycloak has an introspection provider for. */
const introspectionHints = ['access_token', 'refresh_token'];
const refreshTypes = ['Refresh', 'Offline'];

/**
 * Token introspection (RFC 7662) and revocation (RFC 7009) as Keycloak 26.7 answers them
 * (TokenIntrospectionEndpoint, TokenRevocationEndpoint; docs/auth.md, The embedded issuer).
 */
@Injectable()
export class TokenIntrospection {
  constructor(
    private readonly realm: Realm,
    private readonly keys: IssuerKeys,
    private readonly sessions: IssuerSessions,
    private readonly revoked: RevokedTokens,
    @Inject(ISSUER_URL) private readonly issuerUrl: string,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** `{active: false}` for any token that is not active, else its claims with Keycloak's additions. */
  async introspect(
    form: Form,
    authorization: string | undefined,
  ): Promise<Record<string, unknown>> {
    this.confidentialClient(form, authorization);
    const token = form.token;
    if (token === undefined) throw new OAuthError(400, 'invalid_request', 'Token not provided.');
    const hint = form.token_type_hint ?? 'access_token';
    if (!introspectionHints.includes(hint)) {
      throw new OAuthError(400, 'invalid_request', `Unsupported token type [${hint}].`);
    }
    // The hint is only a hint (RFC 7662 §2.1): either kind of token is found whatever it says.
    const claims = await this.activeClaims(token);
    if (claims === undefined) return { active: false };
    const user = this.realm.userById(String(claims.sub));
    return {
      ...claims,
      client_id: claims.azp,
      username: claims.preferred_username ?? user?.username,
      token_type: claims.typ,
      active: true,
    };
  }

  /**
   * Ends the session of a refresh token, or refuses an access token until it expires. A token that is
   * not this issuer's, or whose session is gone, is answered 200 with `invalid_token`, as Keycloak does.
   */
  async revoke(form: Form, authorization: string | undefined): Promise<void> {
    const client = authenticateClient(this.realm, form, authorization);
    const token = form.token;
    if (token === undefined) throw new OAuthError(400, 'invalid_request', 'Token not provided');
    // Like Keycloak's decode: the signature counts, the expiry does not.
    const claims =
      (await this.verify(token, 'access', { ignoreExpiry: true })) ??
      (await this.verify(token, 'refresh', { ignoreExpiry: true }));
    if (claims === undefined) throw new OAuthError(200, 'invalid_token', 'Invalid token');
    if (!['Bearer', ...refreshTypes].includes(String(claims.typ))) {
      throw new OAuthError(400, 'unsupported_token_type', 'Unsupported token type');
    }
    if (typeof claims.azp !== 'string') throw new OAuthError(200, 'invalid_token', 'Invalid token');
    if (claims.azp !== client.clientId) {
      throw new OAuthError(400, 'invalid_request', 'Unmatching clients');
    }
    const sessionGone = claims.sid !== undefined && !(await this.sessions.isActive(claims.sid));
    if (sessionGone || this.realm.userById(String(claims.sub)) === undefined) {
      throw new OAuthError(200, 'invalid_token', 'Invalid token');
    }
    if (refreshTypes.includes(String(claims.typ))) {
      // Keycloak detaches the client's session; here a session belongs to one client, so it ends.
      await this.sessions.end(String(claims.sid));
    } else if (typeof claims.jti === 'string' && typeof claims.exp === 'number') {
      await this.revoked.revoke(claims.jti, claims.exp);
    }
  }

  /** Keycloak refuses public clients, and answers a failed authentication with 401 (26.7). */
  private confidentialClient(form: Form, authorization: string | undefined): RealmClient {
    let client: RealmClient;
    try {
      client = authenticateClient(this.realm, form, authorization);
    } catch (error) {
      if (!(error instanceof OAuthError)) throw error;
      throw new OAuthError(401, 'invalid_client', 'Authentication failed.');
    }
    if (client.publicClient === true) {
      throw new OAuthError(403, 'invalid_request', 'Client not allowed.');
    }
    return client;
  }

  /** The claims of an active token: signed here, unexpired, its client, user and session still there. */
  private async activeClaims(token: string): Promise<TokenClaims | undefined> {
    const access = await this.verify(token, 'access');
    // An ID token is signed like an access token, but is not one.
    if (access !== undefined && access.typ !== 'Bearer') return undefined;
    const claims = access ?? (await this.verify(token, 'refresh'));
    if (claims === undefined) return undefined;
    const user = this.realm.userById(String(claims.sub));
    if (this.realm.client(String(claims.azp)) === undefined || user?.enabled !== true) {
      return undefined;
    }
    if (claims.sid !== undefined && !(await this.sessions.isActive(claims.sid))) return undefined;
    if (claims.sid === undefined && access === undefined) return undefined;
    if (access !== undefined && (await this.revoked.isRevoked(access.jti))) return undefined;
    return claims;
  }

  /** An access token (RS256, typ Bearer) or a refresh token (HS512, typ Refresh) of this issuer. */
  private async verify(
    token: string,
    kind: 'access' | 'refresh',
    options: { ignoreExpiry?: boolean } = {},
  ): Promise<TokenClaims | undefined> {
    try {
      const { payload } = await jwtVerify<TokenClaims>(
        token,
        kind === 'access' ? this.keys.verificationKey : this.keys.refreshSecret,
        {
          algorithms: [kind === 'access' ? 'RS256' : 'HS512'],
          issuer: this.issuerUrl,
          currentDate: new Date(options.ignoreExpiry === true ? 0 : this.clock()),
          clockTolerance: 0,
        },
      );
      if (kind === 'refresh' && !refreshTypes.includes(String(payload.typ))) return undefined;
      return payload;
    } catch {
      return undefined;
    }
  }
}
