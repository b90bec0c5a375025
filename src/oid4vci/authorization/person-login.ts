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
