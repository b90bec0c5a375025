import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { type AuthorizationRequest } from './authorization-request.js';
import { sha256 } from './hashing.js';
import { CLOCK, type Clock } from '../common/clock.js';
import { type IssuerCodeEntity } from './issuer-code.entity.js';
import { IssuerCodeRepository } from './issuer-code.repository.js';
import { type IssuerSessionEntity } from './issuer-session.entity.js';
import { IssuerSessionRepository } from './issuer-session.repository.js';
import { OAuthError } from '../common/oauth-error.js';
import { type RealmClient } from './realm-file.js';
import { Realm, type RealmUserView } from './realm.js';
import { newSessionId } from './token-factory.js';

/**
 * The issuer's user sessions and one-time authorization codes, in PostgreSQL so that every instance
 * sees them: a session lives until logout, its idle timeout or its maximum lifespan (the realm's
 * ssoSessionIdleTimeout and ssoSessionMaxLifespan, as in Keycloak).
 */
@Injectable()
export class IssuerSessions {
  private readonly logger = new Logger(IssuerSessions.name);

  constructor(
    private readonly realm: Realm,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly sessions: IssuerSessionRepository,
    private readonly codes: IssuerCodeRepository,
  ) {}

  async start(
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

  /** The session, if it has not ended or expired; else Keycloak's "Session not active". */
  async active(sessionId: unknown): Promise<IssuerSessionEntity> {
    const session = typeof sessionId === 'string' ? await this.sessions.findById(sessionId) : null;
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

  async isActive(sessionId: unknown): Promise<boolean> {
    try {
      await this.active(sessionId);
      return true;
    } catch {
      return false;
    }
  }

  /** A refresh restarts the idle timeout. */
  async touch(session: IssuerSessionEntity): Promise<void> {
    session.lastRefreshedAt = new Date(this.clock());
    await this.sessions.setLastRefreshed(session.id, session.lastRefreshedAt);
  }

  /** Ends a session (logout): its refresh tokens stop working at once. */
  async end(sessionId: string): Promise<void> {
    await this.sessions.end(sessionId, new Date(this.clock()));
  }

  /** The earliest of idle timeout from now and the session's maximum lifespan, as Keycloak's SSO session settings do. */
  refreshExpiry(session: IssuerSessionEntity): number {
    return Math.min(
      Math.floor(this.clock() / 1000) + this.realm.ssoSessionIdleTimeout,
      this.endOf(session),
    );
  }

  endOf(session: IssuerSessionEntity): number {
    return Math.floor(session.startedAt.getTime() / 1000) + this.realm.ssoSessionMaxLifespan;
  }

  /** After a successful login: a session and a one-time code for the redirect. */
  async issueCode(
    request: AuthorizationRequest,
    user: RealmUserView,
    requestId?: string,
  ): Promise<{ code: string; sessionId: string }> {
    const session = await this.start(user, request.client, requestId);
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

  /** The code's record, used up by this call; undefined when unknown, expired or used before. */
  async consumeCode(code: string): Promise<IssuerCodeEntity | undefined> {
    // One use only, even under concurrent redemption: the UPDATE marks it used atomically.
    const consumed = await this.codes.consume(sha256(code), new Date(this.clock()));
    if (consumed === undefined) {
      // A code presented twice may have been stolen: end the session its first use created
      // (RFC 6749 §4.1.2, as Keycloak does).
      const reused = await this.codes.findByHash(sha256(code));
      if (reused?.usedAt !== null && reused?.usedAt !== undefined) await this.end(reused.sessionId);
    }
    return consumed;
  }
}
