import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import { createHash, randomBytes } from 'node:crypto';
import { IsNull, Repository } from 'typeorm';
import { authenticateClient } from './client-authentication.js';
import { constantTimeEqual, sha256 } from './hashing.js';
import { ISSUER_CLOCK, type Clock } from './issuer-clock.js';
import { IssuerCodeEntity } from './issuer-code.entity.js';
import { IssuerKeys } from './issuer-keys.js';
import { IssuerSessionEntity } from './issuer-session.entity.js';
import { OAuthError } from './oauth-error.js';
import { type RealmClient } from './realm-file.js';
import { Realm, type RealmUserView } from './realm.js';
import { newSessionId, TokenFactory, type GrantKind, type IssuedTokens } from './token-factory.js';

export const ISSUER_URL = Symbol('ISSUER_URL');

/** The token endpoint's answer, fields in Keycloak's order. */
export interface TokenResponse {
  access_token: string;
  expires_in: number;
  refresh_expires_in: number;
  refresh_token?: string;
  token_type: 'Bearer';
  id_token?: string;
  'not-before-policy': 0;
  session_state?: string;
  scope: string;
}

export type Form = Record<string, string | undefined>;

export interface AuthorizationRequest {
  client: RealmClient;
  /** Where the browser goes: the verified, normalised redirect_uri. */
  redirectUri: string;
  /** redirect_uri as sent, which the code exchange must repeat (Keycloak compares the parameter). */
  redirectUriParam: string;
  scope: string;
  state?: string;
  nonce?: string;
  codeChallenge?: string;
  codeChallengeMethod?: string;
}

/**
 * The grants of the embedded Keycloak-compatible issuer: what it checks, in Keycloak's order, and the
 * errors Keycloak answers with (keycloak-compat.md, Errors).
 */
@Injectable()
export class IssuerService {
  private readonly logger = new Logger(IssuerService.name);
  private readonly tokens: TokenFactory;

  constructor(
    readonly realm: Realm,
    readonly keys: IssuerKeys,
    @Inject(ISSUER_URL) readonly issuerUrl: string,
    @Inject(ISSUER_CLOCK) private readonly clock: Clock,
    @InjectRepository(IssuerSessionEntity)
    private readonly sessions: Repository<IssuerSessionEntity>,
    @InjectRepository(IssuerCodeEntity) private readonly codes: Repository<IssuerCodeEntity>,
  ) {
    this.tokens = new TokenFactory(realm, keys, issuerUrl);
  }

  /** Every origin that some client of the realm allows (webOrigins). */
  allowedOrigins(): string[] {
    return this.realm.allClients().flatMap((client) => this.realm.webOrigins(client));
  }

  nowSeconds(): number {
    return Math.floor(this.clock() / 1000);
  }

  async token(
    form: Form,
    authorization: string | undefined,
    clientAddress: string,
    requestId?: string,
  ): Promise<TokenResponse> {
    const grantType = form.grant_type;
    if (grantType === undefined || grantType === '') {
      throw new OAuthError(400, 'invalid_request', 'Missing form parameter: grant_type');
    }
    if (
      !['password', 'refresh_token', 'authorization_code', 'client_credentials'].includes(grantType)
    ) {
      throw new OAuthError(400, 'unsupported_grant_type', 'Unsupported grant_type');
    }
    const client = authenticateClient(this.realm, form, authorization);
    switch (grantType as GrantKind) {
      case 'password':
        return this.passwordGrant(client, form, requestId);
      case 'refresh_token':
        return this.refreshGrant(client, form);
      case 'authorization_code':
        return this.codeGrant(client, form);
      case 'client_credentials':
        return this.clientCredentialsGrant(client, form, clientAddress);
    }
  }

  private async passwordGrant(
    client: RealmClient,
    form: Form,
    requestId: string | undefined,
  ): Promise<TokenResponse> {
    if (client.directAccessGrantsEnabled !== true) {
      throw new OAuthError(
        400,
        'unauthorized_client',
        'Client not allowed for direct access grants',
      );
    }
    const user = this.checkCredentials(form.username ?? '', form.password ?? '');
    const scope = this.realm.grantedScope(form.scope);
    const session = await this.startSession(user, client, requestId);
    return this.issueInSession('password', client, user, session, scope);
  }

  /** Checks a username (or email) and password as Keycloak's direct grant and login form do. */
  checkCredentials(username: string, password: string): RealmUserView {
    const user = this.realm.findUser(username);
    if (
      user === undefined ||
      user.serviceAccountClientId !== undefined ||
      !this.realm.passwordMatches(user, password)
    ) {
      throw new OAuthError(400, 'invalid_grant', 'Invalid user credentials');
    }
    if (!user.enabled) throw new OAuthError(400, 'invalid_grant', 'Account disabled');
    if (!user.fullySetUp || this.realm.hasTemporaryPassword(user)) {
      throw new OAuthError(400, 'invalid_grant', 'Account is not fully set up');
    }
    return user;
  }

  private async refreshGrant(client: RealmClient, form: Form): Promise<TokenResponse> {
    const refreshToken = form.refresh_token;
    if (refreshToken === undefined || refreshToken === '') {
      throw new OAuthError(400, 'invalid_request', 'No refresh token');
    }
    const payload = await this.verifyRefreshTokenOf(client, refreshToken);
    const session = await this.activeSession(payload.sid);
    const user = this.realm.userById(session.userId);
    if (user === undefined || !user.enabled)
      throw new OAuthError(400, 'invalid_grant', 'Session not active');
    session.lastRefreshedAt = new Date(this.clock());
    await this.sessions.update({ id: session.id }, { lastRefreshedAt: session.lastRefreshedAt });
    const scope =
      typeof payload.scope === 'string' ? payload.scope : this.realm.grantedScope(undefined);
    return this.issueInSession('refresh_token', client, user, session, scope);
  }

  /** A refresh token of this issuer, issued to `client` (Keycloak checks the client before the session). */
  private async verifyRefreshTokenOf(
    client: RealmClient,
    token: string,
  ): Promise<JWTPayload & { sid?: string; scope?: string }> {
    const payload = await this.verifyRefreshToken(token);
    if (payload.azp !== client.clientId) {
      throw new OAuthError(
        400,
        'invalid_grant',
        "Invalid refresh token. Token client and authorized client don't match",
      );
    }
    return payload;
  }

  private async verifyRefreshToken(
    token: string,
  ): Promise<JWTPayload & { sid?: string; scope?: string }> {
    try {
      const { payload } = await jwtVerify(token, this.keys.refreshSecret, {
        algorithms: ['HS512'],
        issuer: this.issuerUrl,
        currentDate: new Date(this.clock()),
        clockTolerance: 0,
      });
      if (payload.typ !== 'Refresh' && payload.typ !== 'Offline')
        throw new Error('not a refresh token');
      return payload;
    } catch (error) {
      if (error instanceof joseErrors.JWTExpired)
        throw new OAuthError(400, 'invalid_grant', 'Token is not active');
      throw new OAuthError(400, 'invalid_grant', 'Invalid refresh token');
    }
  }

  private async codeGrant(client: RealmClient, form: Form): Promise<TokenResponse> {
    const code = form.code ?? '';
    const record = await this.consumeCode(code);
    if (record === undefined || record.clientId !== client.clientId) {
      throw new OAuthError(400, 'invalid_grant', 'Code not valid');
    }
    if (form.redirect_uri !== record.redirectUri)
      throw new OAuthError(400, 'invalid_grant', 'Incorrect redirect_uri');
    if (record.codeChallenge !== null) {
      const verifier = form.code_verifier;
      if (verifier === undefined || verifier === '') {
        throw new OAuthError(400, 'invalid_grant', 'PKCE code verifier not specified');
      }
      const computed =
        record.codeChallengeMethod === 'plain'
          ? verifier
          : createHash('sha256').update(verifier).digest('base64url');
      // Keycloak's PkceUtils tells a malformed verifier from a mismatching one.
      if (!/^[A-Za-z0-9\-._~]{43,128}$/.test(verifier)) {
        throw new OAuthError(
          400,
          'invalid_grant',
          'PKCE verification failed: Invalid code verifier',
        );
      }
      if (!constantTimeEqual(computed, record.codeChallenge)) {
        throw new OAuthError(400, 'invalid_grant', 'PKCE verification failed: Code mismatch');
      }
    }
    const session = await this.activeSession(record.sessionId);
    const user = this.realm.userById(session.userId);
    if (user === undefined || !user.enabled)
      throw new OAuthError(400, 'invalid_grant', 'Session not active');
    return this.issueInSession('authorization_code', client, user, session, record.scope, {
      authTime: Math.floor(session.startedAt.getTime() / 1000),
      nonce: record.nonce ?? undefined,
    });
  }

  private async clientCredentialsGrant(
    client: RealmClient,
    form: Form,
    clientAddress: string,
  ): Promise<TokenResponse> {
    if (client.publicClient === true) {
      throw new OAuthError(
        401,
        'unauthorized_client',
        'Public client not allowed to retrieve service account',
      );
    }
    const user = this.realm.serviceAccountOf(client.clientId);
    if (client.serviceAccountsEnabled !== true || user === undefined) {
      throw new OAuthError(
        400,
        'unauthorized_client',
        'Client not enabled to retrieve service account',
      );
    }
    const scope = this.realm.grantedScope(form.scope?.replace(/\bopenid\b/, ''));
    const issued = await this.tokens.issue({
      grant: 'client_credentials',
      client,
      user,
      scope,
      now: this.nowSeconds(),
      clientAddress,
    });
    return {
      access_token: issued.accessToken,
      expires_in: issued.accessExpiresAt - this.nowSeconds(),
      refresh_expires_in: 0,
      token_type: 'Bearer',
      'not-before-policy': 0,
      scope,
    };
  }

  /** Validates an authorization request (the login page's parameters); throws for the error page. */
  authorizationRequest(query: Form):
    | AuthorizationRequest
    | {
        redirectError: { redirectUri: string; error: string; description: string; state?: string };
      } {
    const client = this.realm.client(query.client_id ?? '');
    if (client === undefined) throw new OAuthError(400, 'invalid_request', 'Client not found.');
    const redirectUriParam = query.redirect_uri;
    const redirectUri =
      redirectUriParam === undefined
        ? undefined
        : this.realm.verifiedRedirectUri(client, redirectUriParam);
    if (redirectUriParam === undefined || redirectUri === undefined) {
      // Never redirect to an unregistered URI: that would make the issuer an open redirect.
      throw new OAuthError(400, 'invalid_request', 'Invalid parameter: redirect_uri');
    }
    const fail = (error: string, description: string) => ({
      redirectError: { redirectUri, error, description, state: query.state },
    });
    if (client.standardFlowEnabled === false)
      return fail(
        'unauthorized_client',
        'Client is not allowed to initiate browser login with given response_type. Standard flow is disabled for the client.',
      );
    if (query.response_type !== 'code')
      return fail(
        'unsupported_response_type',
        'Client is not allowed to initiate browser login with given response_type.',
      );
    const requiredMethod = client.attributes?.['pkce.code.challenge.method'];
    const method = query.code_challenge_method;
    const challenge = query.code_challenge;
    if (requiredMethod !== undefined && requiredMethod !== '') {
      if (method === undefined || method === '')
        return fail('invalid_request', 'Missing parameter: code_challenge_method');
      if (method !== requiredMethod)
        return fail(
          'invalid_request',
          'Invalid parameter: code challenge method is not configured one',
        );
    }
    if (
      challenge !== undefined &&
      challenge !== '' &&
      !/^[A-Za-z0-9\-._~]{43,128}$/.test(challenge)
    ) {
      return fail('invalid_request', 'Invalid parameter: code_challenge');
    }
    if (method !== undefined && method !== '' && (challenge === undefined || challenge === '')) {
      return fail('invalid_request', 'Missing parameter: code_challenge');
    }
    if (method !== undefined && method !== '' && method !== 'S256' && method !== 'plain') {
      return fail('invalid_request', 'Invalid parameter: code_challenge_method');
    }
    return {
      client,
      redirectUri,
      redirectUriParam,
      scope: this.realm.grantedScope(query.scope),
      state: query.state,
      nonce: query.nonce,
      codeChallenge: challenge === '' ? undefined : challenge,
      codeChallengeMethod:
        challenge === undefined || challenge === '' ? undefined : (method ?? 'plain'),
    };
  }

  /** After a successful login: a session and a one-time code for the redirect. */
  async issueCode(
    request: AuthorizationRequest,
    user: RealmUserView,
    requestId?: string,
  ): Promise<{ code: string; sessionId: string }> {
    const session = await this.startSession(user, request.client, requestId);
    const code = `${randomBytes(32).toString('base64url')}.${session.id}`;
    await this.codes.insert({
      codeHash: sha256(code),
      sessionId: session.id,
      clientId: request.client.clientId,
      redirectUri: request.redirectUriParam,
      codeChallenge: request.codeChallenge ?? null,
      codeChallengeMethod: request.codeChallengeMethod ?? null,
      scope: request.scope,
      nonce: request.nonce ?? null,
      expiresAt: new Date(this.clock() + this.realm.accessCodeLifespan * 1000),
      usedAt: null,
    });
    return { code, sessionId: session.id };
  }

  /** Ends a session (logout): its refresh tokens stop working at once. */
  async endSession(sessionId: string): Promise<void> {
    await this.sessions.update(
      { id: sessionId, endedAt: IsNull() },
      { endedAt: new Date(this.clock()) },
    );
  }

  /** Logout with a refresh token (Keycloak's back-channel form). */
  async logoutWithRefreshToken(client: RealmClient, refreshToken: string): Promise<void> {
    const payload = await this.verifyRefreshTokenOf(client, refreshToken);
    if (typeof payload.sid === 'string') await this.endSession(payload.sid);
  }

  /** Verifies an access or ID token of this issuer (userinfo, id_token_hint). */
  async verifyOwnToken(
    token: string,
    type: 'Bearer' | 'ID',
    options: { ignoreExpiry?: boolean } = {},
  ): Promise<JWTPayload & Record<string, unknown>> {
    const { payload } = await jwtVerify(token, this.keys.verificationKey, {
      algorithms: ['RS256'],
      issuer: this.issuerUrl,
      currentDate: new Date(options.ignoreExpiry === true ? 0 : this.clock()),
    });
    if (payload.typ !== type) throw new Error(`not a ${type} token`);
    return payload;
  }

  async sessionIsActive(sessionId: unknown): Promise<boolean> {
    try {
      await this.activeSession(sessionId);
      return true;
    } catch {
      return false;
    }
  }

  userinfo(payload: Record<string, unknown>): Record<string, unknown> {
    const user = this.realm.userById(String(payload.sub));
    const client = this.realm.client(String(payload.azp));
    if (user === undefined || client === undefined)
      throw new OAuthError(401, 'invalid_token', 'Token verification failed');
    const claims: Record<string, unknown> = { sub: user.id, ...this.tokens.profileClaims(user) };
    for (const [name, value] of this.realm.attributeClaims(client, user, 'userinfo.token.claim'))
      claims[name] = value;
    return claims;
  }

  private async consumeCode(code: string): Promise<IssuerCodeEntity | undefined> {
    // One use only, even under concurrent redemption: the UPDATE marks it used atomically.
    const result = await this.codes
      .createQueryBuilder()
      .update(IssuerCodeEntity)
      .set({ usedAt: new Date(this.clock()) })
      .where('code_hash = :hash AND used_at IS NULL AND expires_at > :now', {
        hash: sha256(code),
        now: new Date(this.clock()),
      })
      .returning('*')
      .execute();
    const rows = result.raw as Record<string, unknown>[];
    if (rows.length === 0) {
      // A code presented twice may have been stolen: end the session its first use created
      // (RFC 6749 §4.1.2, as Keycloak does).
      const reused = await this.codes.findOneBy({ codeHash: sha256(code) });
      if (reused?.usedAt !== null && reused?.usedAt !== undefined)
        await this.endSession(reused.sessionId);
      return undefined;
    }
    const row = rows[0];
    return {
      codeHash: String(row.code_hash),
      sessionId: String(row.session_id),
      clientId: String(row.client_id),
      redirectUri: String(row.redirect_uri),
      codeChallenge: (row.code_challenge as string | null) ?? null,
      codeChallengeMethod: (row.code_challenge_method as string | null) ?? null,
      scope: String(row.scope),
      nonce: (row.nonce as string | null) ?? null,
      expiresAt: row.expires_at as Date,
      usedAt: row.used_at as Date,
    };
  }

  private async startSession(
    user: RealmUserView,
    client: RealmClient,
    requestId: string | undefined,
  ): Promise<IssuerSessionEntity> {
    const now = new Date(this.clock());
    const session: IssuerSessionEntity = {
      id: newSessionId(),
      userId: user.id,
      username: user.username,
      clientId: client.clientId,
      startedAt: now,
      lastRefreshedAt: now,
      endedAt: null,
    };
    await this.sessions.insert(session);
    this.logger.log({
      msg: `Session started for ${user.username} (${client.clientId})`,
      reqId: requestId,
    });
    return session;
  }

  private async activeSession(sessionId: unknown): Promise<IssuerSessionEntity> {
    const session =
      typeof sessionId === 'string' ? await this.sessions.findOneBy({ id: sessionId }) : null;
    const now = this.clock();
    if (
      session === null ||
      session.endedAt !== null ||
      now > session.lastRefreshedAt.getTime() + this.realm.ssoSessionIdleTimeout * 1000 ||
      now > session.startedAt.getTime() + this.realm.ssoSessionMaxLifespan * 1000
    ) {
      throw new OAuthError(400, 'invalid_grant', 'Session not active');
    }
    return session;
  }

  /** The earliest of idle timeout from now and the session's maximum lifespan (keycloak-compat.md). */
  private refreshExpiry(session: IssuerSessionEntity): number {
    return Math.min(this.nowSeconds() + this.realm.ssoSessionIdleTimeout, this.sessionEnd(session));
  }

  private sessionEnd(session: IssuerSessionEntity): number {
    return Math.floor(session.startedAt.getTime() / 1000) + this.realm.ssoSessionMaxLifespan;
  }

  /** Tokens of a grant that belongs to a session: refresh and access tokens end with the session. */
  private async issueInSession(
    grant: GrantKind,
    client: RealmClient,
    user: RealmUserView,
    session: IssuerSessionEntity,
    scope: string,
    extra: { authTime?: number; nonce?: string } = {},
  ): Promise<TokenResponse> {
    const issued = await this.tokens.issue({
      grant,
      client,
      user,
      sessionId: session.id,
      scope,
      ...extra,
      now: this.nowSeconds(),
      refreshExpiresAt: this.refreshExpiry(session),
      sessionEndsAt: this.sessionEnd(session),
    });
    return this.respond(issued, session.id, scope);
  }

  private respond(issued: IssuedTokens, sessionId: string, scope: string): TokenResponse {
    const now = this.nowSeconds();
    const response: TokenResponse = {
      access_token: issued.accessToken,
      expires_in: issued.accessExpiresAt - now,
      refresh_expires_in: 0,
      refresh_token: issued.refreshToken,
      token_type: 'Bearer',
      'not-before-policy': 0,
      session_state: sessionId,
      scope,
    };
    if (issued.refreshToken !== undefined) {
      const refreshExp = decodeExp(issued.refreshToken);
      response.refresh_expires_in = refreshExp - now;
    }
    // Keycloak's field order: the id_token goes after token_type.
    return issued.idToken === undefined
      ? response
      : {
          access_token: response.access_token,
          expires_in: response.expires_in,
          refresh_expires_in: response.refresh_expires_in,
          refresh_token: response.refresh_token,
          token_type: 'Bearer',
          id_token: issued.idToken,
          'not-before-policy': 0,
          session_state: sessionId,
          scope,
        };
  }
}

function decodeExp(token: string): number {
  const payload = JSON.parse(
    Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8'),
  ) as { exp: number };
  return payload.exp;
}
