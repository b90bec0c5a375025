import { randomBytes } from 'node:crypto';
import { Browser, loginForm, pkcePair, type BrowserResponse } from './browser.js';
import {
  postForm,
  startTestService,
  tokenPath,
  type ApiResponse,
  type TestService,
  type TokenResponseBody,
} from './test-service.js';

/**
 * What the embedded issuer's e2e files share: Keycloak 26's token shapes (docs/auth.md) and a running
 * service with a movable issuer clock, a browser that keeps cookies and the usual grants.
 */

export const realmPath = '/auth/realms/agent-cloud';
export const oidcPath = `${realmPath}/protocol/openid-connect`;
export const tenantsPath = '/ctrl/api/v1.0/tenants';
export const serviceClientSecret = 'change-me';

/** Keycloak's access token claims, in its order, as Keycloak 26 signs them. */
export const userAccessClaims = [
  'exp',
  'iat',
  'jti',
  'iss',
  'aud',
  'sub',
  'typ',
  'azp',
  'sid',
  'acr',
  'allowed-origins',
  'realm_access',
  'resource_access',
  'scope',
  'email_verified',
  'name',
  'preferred_username',
  'given_name',
  'family_name',
  'email',
];
export const refreshClaims = [
  'exp',
  'iat',
  'jti',
  'iss',
  'aud',
  'sub',
  'typ',
  'azp',
  'sid',
  'scope',
];
export const tokenResponseFields = [
  'access_token',
  'expires_in',
  'refresh_expires_in',
  'refresh_token',
  'token_type',
  'not-before-policy',
  'session_state',
  'scope',
];
export const tokenResponseFieldsWithIdToken = [
  'access_token',
  'expires_in',
  'refresh_expires_in',
  'refresh_token',
  'token_type',
  'id_token',
  'not-before-policy',
  'session_state',
  'scope',
];

export type Claims = Record<string, unknown>;

export interface OAuthErrorBody {
  error: string;
  error_description: string;
}

export interface Discovery {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  jwks_uri: string;
  userinfo_endpoint: string;
  end_session_endpoint: string;
  grant_types_supported: string[];
  response_types_supported: string[];
  subject_types_supported: string[];
  id_token_signing_alg_values_supported: string[];
  scopes_supported: string[];
  code_challenge_methods_supported: string[];
  token_endpoint_auth_methods_supported: string[];
}

export interface Jwks {
  keys: { kid: string; kty: string; alg?: string; use?: string }[];
}

/** Header and claims of a JWT as sent, in the order they were written. */
export function decodeJwt(token: string): { header: Claims; claims: Claims } {
  const [header, payload] = token.split('.');
  const parse = (part: string | undefined) =>
    JSON.parse(Buffer.from(part ?? '', 'base64url').toString('utf8')) as Claims;
  return { header: parse(header), claims: parse(payload) };
}

/** The names of `claims` that appear in `order`, in the order the token has them. */
export function relativeOrder(claims: Claims, order: string[]): string[] {
  return Object.keys(claims).filter((name) => order.includes(name));
}

export function basicAuth(clientId: string, secret: string): string {
  return `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`;
}

export function expectOAuthError(
  response: ApiResponse,
  status: number,
  error: string,
  description: string,
): void {
  expect({ status: response.status, body: response.body }).toEqual({
    status,
    body: { error, error_description: description },
  });
}

/** Registers the service's start and stop on the calling describe block; helpers use it once started. */
export function useIssuer() {
  const context = {
    service: undefined as unknown as TestService,
    issuer: '',
    registeredRedirectUri: '',
  };
  /** The issuer's clock in milliseconds; tests move it forward, never back. */
  let now = Date.now();
  const advanceSeconds = (seconds: number) => {
    now += seconds * 1000;
  };
  const nowSeconds = () => Math.floor(now / 1000);

  beforeAll(async () => {
    const service = await startTestService({ clock: () => now });
    context.service = service;
    context.issuer = `${service.publicBaseUrl}${realmPath}`;
    context.registeredRedirectUri = `${service.publicBaseUrl}/ctrl/swagger-ui/oauth2-redirect.html`;
  });

  afterAll(async () => {
    await context.service.close();
  });

  /** One browser per file: it keeps the issuer's cookies between requests, as a real one does. */
  const browser = new Browser();
  const browse = (url: string): Promise<BrowserResponse> => browser.get(url);
  const submitForm = (action: string, fields: [string, string][]): Promise<BrowserResponse> =>
    browser.post(action, fields);

  const token = (fields: Record<string, string> | [string, string][], headers = {}) =>
    postForm(context.service.url, tokenPath, fields, headers);

  async function password(
    username = 'admin',
    secret = username,
    extra: Record<string, string> = {},
  ): Promise<TokenResponseBody> {
    const response = await token({
      client_id: 'agent-client',
      grant_type: 'password',
      username,
      password: secret,
      ...extra,
    });
    expect(response.status).toBe(200);
    return response.body as TokenResponseBody;
  }

  const refresh = (refreshToken: string, clientId = 'agent-client') =>
    token({ client_id: clientId, grant_type: 'refresh_token', refresh_token: refreshToken });

  const listTenants = (accessToken: string) =>
    context.service.request(tenantsPath, { token: accessToken });

  function authorizeUrl(parameters: Record<string, string>): string {
    const url = new URL(`${context.issuer}/protocol/openid-connect/auth`);
    for (const [name, value] of Object.entries(parameters)) url.searchParams.set(name, value);
    return url.toString();
  }

  /** The authorization request of the Swagger UI: code flow with PKCE S256. */
  function swaggerAuthorizeParameters(challenge: string, state: string): Record<string, string> {
    return {
      client_id: 'agent-client',
      response_type: 'code',
      redirect_uri: context.registeredRedirectUri,
      scope: 'openid',
      state,
      code_challenge: challenge,
      code_challenge_method: 'S256',
    };
  }

  /** Signs in through the login page as a browser does and returns where the issuer redirects. */
  async function browserSignIn(
    username = 'admin',
    secret = username,
  ): Promise<{ code: string; verifier: string; redirect: URL; state: string }> {
    const { verifier, challenge } = pkcePair();
    const state = randomBytes(8).toString('hex');
    const page = await browse(authorizeUrl(swaggerAuthorizeParameters(challenge, state)));
    expect(page.status).toBe(200);
    const form = loginForm(page.text);
    const answer = await submitForm(form.action, [
      ...form.hidden,
      ['username', username],
      ['password', secret],
    ]);
    expect(answer.status).toBe(302);
    const redirect = new URL(answer.location ?? '');
    return { code: redirect.searchParams.get('code') ?? '', verifier, redirect, state };
  }

  const exchangeCode = (code: string, verifier: string | undefined, redirectUri?: string) =>
    token({
      grant_type: 'authorization_code',
      client_id: 'agent-client',
      code,
      ...(redirectUri === undefined ? { redirect_uri: context.registeredRedirectUri } : {}),
      ...(redirectUri !== undefined && redirectUri !== '' ? { redirect_uri: redirectUri } : {}),
      ...(verifier === undefined ? {} : { code_verifier: verifier }),
    });

  return {
    context,
    advanceSeconds,
    nowSeconds,
    token,
    password,
    refresh,
    listTenants,
    authorizeUrl,
    swaggerAuthorizeParameters,
    browserSignIn,
    exchangeCode,
    browse,
    submitForm,
  };
}
