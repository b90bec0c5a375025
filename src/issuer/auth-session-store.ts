import { Inject, Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { sha256 } from './hashing.js';
import { type IssuerAuthSessionEntity } from './issuer-auth-session.entity.js';
import { IssuerAuthSessionRepository } from './issuer-auth-session.repository.js';
import { CLOCK, type Clock } from '../common/clock.js';
import { Realm } from './realm.js';

/** A login page as stored: the browser's root session, the page's tab and its authorization request. */
export type PendingLogin = Pick<
  IssuerAuthSessionEntity,
  'rootHash' | 'tabId' | 'clientId' | 'request'
>;

/**
 * Authorization requests waiting for their login form (Keycloak's authentication sessions), kept in
 * PostgreSQL so that every instance sees them. A browser's AUTH_SESSION_ID cookie names its root
 * session, each login page is a tab of it, and the form must post back the page's one-time session
 * code. A page lives accessCodeLifespanLogin seconds after its last use.
 */
@Injectable()
export class AuthSessionStore {
  constructor(
    private readonly logins: IssuerAuthSessionRepository,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly realm: Realm,
  ) {}

  /** Stores the request of a new login page, in the browser's root session if it still has one. */
  async start(
    cookie: string | undefined,
    clientId: string,
    request: Record<string, string>,
  ): Promise<{ cookie: string; cookieIsNew: boolean; tabId: string; sessionCode: string }> {
    const live =
      cookie !== undefined && (await this.logins.hasLivePage(sha256(cookie), this.now()));
    const root = live ? cookie : randomToken(32);
    const tabId = randomToken(8);
    const sessionCode = randomToken(32);
    await this.logins.insert({
      rootHash: sha256(root),
      tabId,
      clientId,
      request,
      sessionCodeHash: sha256(sessionCode),
      expiresAt: this.expiry(),
    });
    return { cookie: root, cookieIsNew: !live, tabId, sessionCode };
  }

  /** The live login page of this cookie, tab and client, if there is one. */
  async find(
    cookie: string | undefined,
    tabId: string | undefined,
    clientId: string | undefined,
  ): Promise<PendingLogin | undefined> {
    if (cookie === undefined || tabId === undefined || clientId === undefined) return undefined;
    const login = await this.logins.findLive(
      { rootHash: sha256(cookie), tabId },
      clientId,
      this.now(),
    );
    return login ?? undefined;
  }

  /** Takes the page's session code (once, even under concurrent posts) and returns the next one. */
  async takeCode(
    login: PendingLogin,
    sessionCode: string | undefined,
  ): Promise<string | undefined> {
    if (sessionCode === undefined) return undefined;
    const next = randomToken(32);
    const taken = await this.logins.swapCode(
      { rootHash: login.rootHash, tabId: login.tabId },
      sha256(sessionCode),
      sha256(next),
      this.now(),
      this.expiry(),
    );
    return taken ? next : undefined;
  }

  /** A fresh session code for a page shown again. */
  async renewCode(login: PendingLogin): Promise<string> {
    const next = randomToken(32);
    await this.logins.setCode(
      { rootHash: login.rootHash, tabId: login.tabId },
      sha256(next),
      this.expiry(),
    );
    return next;
  }

  /** A successful login spends its page, as Keycloak removes the tab's authentication session. */
  async finish(login: PendingLogin): Promise<void> {
    await this.logins.delete({ rootHash: login.rootHash, tabId: login.tabId });
  }

  private now(): Date {
    return new Date(this.clock());
  }

  private expiry(): Date {
    return new Date(this.clock() + this.realm.accessCodeLifespanLogin * 1000);
  }
}

function randomToken(bytes: number): string {
  return randomBytes(bytes).toString('base64url');
}
