import { Inject, Injectable } from '@nestjs/common';
import { errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import { authenticateClient } from './client-authentication.js';
import { type Form } from './issuer-http.js';
import { CLOCK, type Clock } from '../common/clock.js';
import { IssuerKeys } from './issuer-keys.js';
import { IssuerSessions } from './issuer-sessions.js';
import { type IssuerSessionEntity } from './issuer-session.entity.js';
import { ISSUER_URL } from './issuer-url.js';
import { OAuthError } from '../common/oauth-error.js';
import { PasswordLogin } from './password-login.js';
import { verifyPkce } from './pkce.js';
import { type RealmClient } from './realm-file.js';
import { Realm, type RealmUserView } from './realm.js';
import { TokenFactory, type GrantKind } from './token-factory.js';
import { sessionTokenResponse, type TokenResponse } from './token-response.js';

type RefreshTokenPayload = JWTPayload & { sid?: string; scope?: string };

/**
 * The token endpoint's grants: what they check, in Keycloak's order, and the errors Keycloak answers with
 * (docs/auth.md, The embedded issuer).
 */
@Injectable()
export class TokenGrants {
  constructor(
    private readonly realm: Realm,
    private readonly keys: IssuerKeys,
    private readonly sessions: IssuerSessions,
    private readonly tokens: TokenFactory,
    private readonly passwordLogin: PasswordLogin,
    @Inject(ISSUER_URL) private readonly issuerUrl: string,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

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
        return this.passwordGrant(client, form, clientAddress, requestId);
      case 'refresh_token':
        return this.refreshGrant(client, form);
      case 'authorization_code':
        return this.codeGrant(client, form);
      case 'client_credentials':
        return this.clientCredentialsGrant(client, form, clientAddress);
    }
  }

  /** Logout with a refresh token (Keycloak's back-channel form). */
  async logoutWithRefreshToken(client: RealmClient, refreshToken: string): Promise<void> {
    const payload = await this.verifyRefreshTokenOf(client, refreshToken);
    if (typeof payload.sid === 'string') await this.sessions.end(payload.sid);
  }

  private nowSeconds(): number {
    return Math.floor(this.clock() / 1000);
  }

  private async passwordGrant(
    client: RealmClient,
    form: Form,
    clientAddress: string,
    requestId: string | undefined,
  ): Promise<TokenResponse> {
    if (client.directAccessGrantsEnabled !== true) {
      throw new OAuthError(
        400,
        'unauthorized_client',
        'Client not allowed for direct access grants',
      );
    }
    const user = await this.passwordLogin.authenticate({
      username: form.username ?? '',
      password: form.password ?? '',
      channel: 'direct-grant',
      clientAddress,
      requestId,
    });
    const scope = this.realm.grantedScope(form.scope);
    const session = await this.sessions.start(user, client, requestId);
    return this.issueInSession('password', client, user, session, scope);
  }

  private async refreshGrant(client: RealmClient, form: Form): Promise<TokenResponse> {
    const refreshToken = form.refresh_token;
    if (refreshToken === undefined || refreshToken === '') {
      throw new OAuthError(400, 'invalid_request', 'No refresh token');
    }
    const payload = await this.verifyRefreshTokenOf(client, refreshToken);
    const session = await this.sessions.active(payload.sid);
    const user = this.realm.userById(session.userId);
    if (user === undefined || !user.enabled)
      throw new OAuthError(400, 'invalid_grant', 'Session not active');
    await this.sessions.touch(session);
    const scope =
      typeof payload.scope === 'string' ? payload.scope : this.realm.grantedScope(undefined);
    return this.issueInSession('refresh_token', client, user, session, scope);
  }

  /** A refresh token of this issuer, issued to `client` (Keycloak checks the client before the session). */
  private async verifyRefreshTokenOf(
    client: RealmClient,
    token: string,
  ): Promise<RefreshTokenPayload> {
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

  private async verifyRefreshToken(token: string): Promise<RefreshTokenPayload> {
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
    const record = await this.sessions.consumeCode(form.code ?? '');
    if (record === undefined || record.clientId !== client.clientId) {
      throw new OAuthError(400, 'invalid_grant', 'Code not valid');
    }
    if (form.redirect_uri !== record.redirectUri)
      throw new OAuthError(400, 'invalid_grant', 'Incorrect redirect_uri');
    if (record.codeChallenge !== null) {
      verifyPkce(record.codeChallenge, record.codeChallengeMethod, form.code_verifier);
    }
    const session = await this.sessions.active(record.sessionId);
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
      refreshExpiresAt: this.sessions.refreshExpiry(session),
      sessionEndsAt: this.sessions.endOf(session),
    });
    return sessionTokenResponse(issued, session.id, scope, this.nowSeconds());
  }
}
