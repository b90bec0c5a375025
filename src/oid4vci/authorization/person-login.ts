import { Injectable } from '@nestjs/common';

/** What the login is started with: our own state, nonce and PKCE challenge (never the wallet's). */
export interface PersonLoginStart {
  state: string;
  nonce: string;
  codeChallenge: string;
}

/** What the login's callback finishes it with. */
export interface PersonLoginFinish {
  code: string;
  codeVerifier: string;
  nonce: string;
}

/**
 * The person's login at the tenant's login provider (docs/oid4vci.md, Authorization code flow): the
 * URL the browser is sent to, then the person's claims once it comes back to
 * `{issuer}/login/callback`. The seam between the authorization server and whichever login the
 * tenant has; `finish` throws when the login did not succeed.
 */
export interface PersonLogin {
  start(tenantId: string, login: PersonLoginStart): Promise<string>;
  finish(tenantId: string, login: PersonLoginFinish): Promise<Record<string, unknown>>;
}

export const PERSON_LOGIN = Symbol('PERSON_LOGIN');

/** No login provider is wired: every authorization ends before the login, with an error for the wallet. */
export class NoPersonLogin extends Error {
  constructor() {
    super('This issuer has no login for persons.');
    this.name = 'NoPersonLogin';
  }
}

/** The default until a login provider is wired: refuses, so nothing is issued without a real login. */
@Injectable()
export class UnconfiguredPersonLogin implements PersonLogin {
  start(): Promise<string> {
    return Promise.reject(new NoPersonLogin());
  }

  finish(): Promise<Record<string, unknown>> {
    return Promise.reject(new NoPersonLogin());
  }
}
