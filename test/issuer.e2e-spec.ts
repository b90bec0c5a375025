import { randomBytes } from 'node:crypto';
import { createRemoteJWKSet, jwtVerify, SignJWT } from 'jose';
import { Browser, loginForm, pkcePair, type BrowserResponse } from './support/browser.js';
import { realmVariant } from './support/realm-variant.js';
import {
  postForm,
  startTestService,
  tokenPath,
  type ApiResponse,
  type TestService,
  type TokenResponseBody,
} from './support/test-service.js';

/**
 * The embedded issuer over real HTTP, held to keycloak-compat.md: what a client written against
 * Keycloak 26.7 sees must be what it sees here.
 */

const realmPath = '/auth/realms/agent-cloud';
const oidcPath = `${realmPath}/protocol/openid-connect`;
const tenantsPath = '/ctrl/api/v1.0/tenants';
const serviceClientSecret = 'change-me';

/** Keycloak's access token claims, in its order (keycloak-compat.md, Access token). */
const userAccessClaims = [
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
const refreshClaims = ['exp', 'iat', 'jti', 'iss', 'aud', 'sub', 'typ', 'azp', 'sid', 'scope'];
const tokenResponseFields = [
  'access_token',
  'expires_in',
  'refresh_expires_in',
  'refresh_token',
  'token_type',
  'not-before-policy',
  'session_state',
  'scope',
];
const tokenResponseFieldsWithIdToken = [
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

type Claims = Record<string, unknown>;

interface OAuthErrorBody {
  error: string;
  error_description: string;
}

interface Discovery {
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

interface Jwks {
  keys: { kid: string; kty: string; alg?: string; use?: string }[];
}

/** Header and claims of a JWT as sent, in the order they were written. */
function decodeJwt(token: string): { header: Claims; claims: Claims } {
  const [header, payload] = token.split('.');
  const parse = (part: string | undefined) =>
    JSON.parse(Buffer.from(part ?? '', 'base64url').toString('utf8')) as Claims;
  return { header: parse(header), claims: parse(payload) };
}

/** The names of `claims` that appear in `order`, in the order the token has them. */
function relativeOrder(claims: Claims, order: string[]): string[] {
  return Object.keys(claims).filter((name) => order.includes(name));
}

/** One browser for the file: it keeps the issuer's cookies between requests, as a real one does. */
const browser = new Browser();

function browse(url: string): Promise<BrowserResponse> {
  return browser.get(url);
}

function submitForm(action: string, fields: [string, string][]): Promise<BrowserResponse> {
  return browser.post(action, fields);
}

function basicAuth(clientId: string, secret: string): string {
  return `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`;
}

function expectOAuthError(
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

describe('Embedded Keycloak-compatible issuer', () => {
  let service: TestService;
  let issuer: string;
  let registeredRedirectUri: string;
  /** The issuer's clock in milliseconds; tests move it forward, never back. */
  let now = Date.now();
  const advanceSeconds = (seconds: number) => {
    now += seconds * 1000;
  };
  const nowSeconds = () => Math.floor(now / 1000);

  beforeAll(async () => {
    service = await startTestService({ issuerClock: () => now });
    issuer = `${service.publicBaseUrl}${realmPath}`;
    registeredRedirectUri = `${service.publicBaseUrl}/ctrl/swagger-ui/oauth2-redirect.html`;
  });

  afterAll(async () => {
    await service.close();
  });

  const token = (fields: Record<string, string> | [string, string][], headers = {}) =>
    postForm(service.url, tokenPath, fields, headers);

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

  const listTenants = (accessToken: string) => service.request(tenantsPath, { token: accessToken });

  function authorizeUrl(parameters: Record<string, string>): string {
    const url = new URL(`${issuer}/protocol/openid-connect/auth`);
    for (const [name, value] of Object.entries(parameters)) url.searchParams.set(name, value);
    return url.toString();
  }

  /** The authorization request of the Swagger UI: code flow with PKCE S256. */
  function swaggerAuthorizeParameters(challenge: string, state: string): Record<string, string> {
    return {
      client_id: 'agent-client',
      response_type: 'code',
      redirect_uri: registeredRedirectUri,
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
      ...(redirectUri === undefined ? { redirect_uri: registeredRedirectUri } : {}),
      ...(redirectUri !== undefined && redirectUri !== '' ? { redirect_uri: redirectUri } : {}),
      ...(verifier === undefined ? {} : { code_verifier: verifier }),
    });

  describe('the seed flow', () => {
    it('gives a token that lists tenants, and a refreshed token that lists them too', async () => {
      const first = await token({
        client_id: 'agent-client',
        grant_type: 'password',
        username: 'admin',
        password: 'admin',
      });
      expect(first.status).toBe(200);
      expect(first.headers.get('cache-control')).toBe('no-store');
      expect(first.headers.get('pragma')).toBe('no-cache');
      const tokens = first.body as TokenResponseBody;
      expect((await listTenants(tokens.access_token)).status).toBe(200);

      const second = await refresh(tokens.refresh_token!);
      expect(second.status).toBe(200);
      expect(second.headers.get('cache-control')).toBe('no-store');
      expect(second.headers.get('pragma')).toBe('no-cache');
      const refreshed = second.body as TokenResponseBody;
      expect((await listTenants(refreshed.access_token)).status).toBe(200);
      expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
      expect(refreshed.access_token).not.toBe(tokens.access_token);
    });

    it("answers with Keycloak's fields in Keycloak's order and the realm's lifetimes", async () => {
      const response = await token({
        client_id: 'agent-client',
        grant_type: 'password',
        username: 'demo',
        password: 'demo',
      });
      expect(Object.keys(response.body as object)).toEqual(tokenResponseFields);
      expect(response.body).toEqual({
        access_token: expect.any(String),
        expires_in: 600,
        refresh_expires_in: 1800,
        refresh_token: expect.any(String),
        token_type: 'Bearer',
        'not-before-policy': 0,
        session_state: expect.stringMatching(/^[A-Za-z0-9_-]{24}$/),
        scope: 'email profile',
      });
    });

    it('adds an id_token after token_type and openid to the scope when openid is asked for', async () => {
      const tokens = await password('admin', 'admin', { scope: 'openid' });
      expect(Object.keys(tokens)).toEqual(tokenResponseFieldsWithIdToken);
      expect(tokens.scope).toBe('openid email profile');
      const idToken = decodeJwt(tokens.id_token!);
      expect(idToken.header).toMatchObject({ alg: 'RS256', typ: 'JWT' });
      expect(idToken.claims).toMatchObject({
        typ: 'ID',
        iss: issuer,
        aud: 'agent-client',
        azp: 'agent-client',
        sid: tokens.session_state,
        preferred_username: 'admin',
      });
    });

    it('keeps the shape, the scope and the session on every refresh, with a new refresh token each time', async () => {
      const tokens = await password('admin', 'admin', { scope: 'openid' });
      const first = await refresh(tokens.refresh_token!);
      const second = await refresh((first.body as TokenResponseBody).refresh_token!);
      for (const response of [first, second]) {
        expect(response.status).toBe(200);
        expect(Object.keys(response.body as object)).toEqual(tokenResponseFieldsWithIdToken);
        expect(response.body).toMatchObject({
          expires_in: 600,
          refresh_expires_in: 1800,
          token_type: 'Bearer',
          'not-before-policy': 0,
          session_state: tokens.session_state,
          scope: 'openid email profile',
        });
      }
      const refreshTokens = [
        tokens.refresh_token,
        (first.body as TokenResponseBody).refresh_token,
        (second.body as TokenResponseBody).refresh_token,
      ];
      expect(new Set(refreshTokens).size).toBe(3);
    });

    it('keeps an earlier refresh token usable, as revokeRefreshToken is off in the realm', async () => {
      const tokens = await password();
      expect((await refresh(tokens.refresh_token!)).status).toBe(200);
      expect((await refresh(tokens.refresh_token!)).status).toBe(200);
    });

    it('reports as session_state the sid of the access token', async () => {
      const tokens = await password('demo');
      expect(tokens.session_state).toMatch(/^[A-Za-z0-9_-]{24}$/);
      expect(decodeJwt(tokens.access_token).claims.sid).toBe(tokens.session_state);
      expect(decodeJwt(tokens.refresh_token!).claims.sid).toBe(tokens.session_state);
    });
  });

  describe('access tokens', () => {
    it('carry the RS256 header with a kid that the JWKS publishes', async () => {
      const { header } = decodeJwt((await password()).access_token);
      expect(Object.keys(header)).toEqual(['alg', 'typ', 'kid']);
      expect(header).toEqual({ alg: 'RS256', typ: 'JWT', kid: expect.any(String) });
      const jwks = (await service.request<Jwks>(`${oidcPath}/certs`, { as: 'anonymous' })).body;
      expect(jwks.keys.map((key) => key.kid)).toContain(header.kid);
    });

    it('verify against the published JWKS with an independent JOSE library', async () => {
      const accessToken = (await password('demo')).access_token;
      const keySet = createRemoteJWKSet(new URL(`${service.url}${oidcPath}/certs`));
      const { payload, protectedHeader } = await jwtVerify(accessToken, keySet, {
        issuer,
        audience: 'agent-api',
        algorithms: ['RS256'],
        typ: 'JWT',
        currentDate: new Date(now),
      });
      expect(protectedHeader.alg).toBe('RS256');
      expect(payload.preferred_username).toBe('demo');
    });

    it("hold an administrator's claims in Keycloak's order, without tenant_ids", async () => {
      const { claims } = decodeJwt((await password('admin')).access_token);
      expect(Object.keys(claims)).toEqual(userAccessClaims);
      expect(claims).toMatchObject({
        iss: issuer,
        typ: 'Bearer',
        azp: 'agent-client',
        acr: '1',
        scope: 'email profile',
        email_verified: true,
        name: 'Agent Admin',
        preferred_username: 'admin',
        given_name: 'Agent',
        family_name: 'Admin',
        email: 'admin@agent-cloud.local',
      });
      expect(claims).not.toHaveProperty('tenant_ids');
      expect(claims).not.toHaveProperty('session_state');
      expect(claims).not.toHaveProperty('auth_time');
      expect((claims.realm_access as { roles: string[] }).roles).toContain('agent-admin');
      expect(claims['allowed-origins']).toEqual([service.publicBaseUrl]);
    });

    it("hold a user's tenant_ids after the profile claims", async () => {
      const { claims } = decodeJwt((await password('demo')).access_token);
      expect(Object.keys(claims)).toEqual([...userAccessClaims, 'tenant_ids']);
      expect(claims.tenant_ids).toEqual(['demo']);
      expect((claims.realm_access as { roles: string[] }).roles).toContain('agent-user');
      expect((claims.realm_access as { roles: string[] }).roles).not.toContain('agent-admin');
    });

    it('name agent-api as an audience, expire 600 seconds after issue and say how they were obtained', async () => {
      const tokens = await password();
      const { claims } = decodeJwt(tokens.access_token);
      const audience = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
      expect(audience).toContain('agent-api');
      expect(claims.iat).toBe(nowSeconds());
      expect(claims.exp).toBe((claims.iat as number) + 600);
      expect(claims.jti).toMatch(/^onrtro:./);
      const refreshed = (await refresh(tokens.refresh_token!)).body as TokenResponseBody;
      expect(decodeJwt(refreshed.access_token).claims.jti).toMatch(/^onrtrt:./);
    });
  });

  describe('refresh tokens', () => {
    it('are HS512 with a kid the JWKS does not publish, typ Refresh, for the issuer, for 1800 seconds', async () => {
      const tokens = await password();
      const { header, claims } = decodeJwt(tokens.refresh_token!);
      expect(header).toEqual({ alg: 'HS512', typ: 'JWT', kid: expect.any(String) });
      const jwks = (await service.request<Jwks>(`${oidcPath}/certs`, { as: 'anonymous' })).body;
      expect(jwks.keys.map((key) => key.kid)).not.toContain(header.kid);
      expect(Object.keys(claims)).toEqual(refreshClaims);
      expect(claims).toMatchObject({
        iss: issuer,
        aud: issuer,
        typ: 'Refresh',
        azp: 'agent-client',
        sid: tokens.session_state,
        scope: 'email profile',
      });
      expect(claims.exp).toBe((claims.iat as number) + 1800);
    });

    it('are not accepted by the API as access tokens', async () => {
      const tokens = await password();
      expect((await listTenants(tokens.refresh_token!)).status).toBe(401);
    });
  });

  describe('discovery', () => {
    it('publishes every endpoint on the public origin, even when fetched on the internal address', async () => {
      const response = await service.request<Discovery>(
        `${realmPath}/.well-known/openid-configuration`,
        { as: 'anonymous' },
      );
      expect(response.status).toBe(200);
      const endpoints = `${issuer}/protocol/openid-connect`;
      expect(response.body).toMatchObject({
        issuer,
        authorization_endpoint: `${endpoints}/auth`,
        token_endpoint: `${endpoints}/token`,
        jwks_uri: `${endpoints}/certs`,
        userinfo_endpoint: `${endpoints}/userinfo`,
        end_session_endpoint: `${endpoints}/logout`,
        id_token_signing_alg_values_supported: ['RS256'],
      });
      const discovery = response.body;
      expect(discovery.grant_types_supported).toEqual(
        expect.arrayContaining([
          'authorization_code',
          'client_credentials',
          'password',
          'refresh_token',
        ]),
      );
      expect(discovery.response_types_supported).toContain('code');
      expect(discovery.subject_types_supported).toContain('public');
      expect(discovery.scopes_supported).toEqual(
        expect.arrayContaining(['openid', 'email', 'profile']),
      );
      expect(discovery.code_challenge_methods_supported).toEqual(
        expect.arrayContaining(['plain', 'S256']),
      );
      expect(discovery.token_endpoint_auth_methods_supported).toEqual(
        expect.arrayContaining(['client_secret_basic', 'client_secret_post']),
      );
    });

    it('points at a JWKS and a token endpoint that answer', async () => {
      const discovery = (
        await service.request<Discovery>(`${realmPath}/.well-known/openid-configuration`, {
          as: 'anonymous',
        })
      ).body;
      const jwks = (await (await fetch(discovery.jwks_uri)).json()) as Jwks;
      expect(jwks.keys).toEqual([
        expect.objectContaining({ kty: 'RSA', alg: 'RS256', use: 'sig', kid: expect.any(String) }),
      ]);
      const response = await fetch(discovery.token_endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          client_id: 'agent-client',
          grant_type: 'password',
          username: 'demo',
          password: 'demo',
        }).toString(),
      });
      expect(response.status).toBe(200);
    });
  });

  describe('token endpoint errors (keycloak-compat.md, Errors)', () => {
    it('refuses a request without grant_type', async () => {
      const response = await token({
        client_id: 'agent-client',
        username: 'admin',
        password: 'admin',
      });
      expectOAuthError(response, 400, 'invalid_request', 'Missing form parameter: grant_type');
    });

    it('refuses an unknown grant_type', async () => {
      const response = await token({ client_id: 'agent-client', grant_type: 'implicit' });
      expectOAuthError(response, 400, 'unsupported_grant_type', 'Unsupported grant_type');
    });

    it('refuses an unknown client', async () => {
      const response = await token({
        client_id: 'no-such-client',
        grant_type: 'password',
        username: 'admin',
        password: 'admin',
      });
      expectOAuthError(
        response,
        401,
        'invalid_client',
        'Invalid client or Invalid client credentials',
      );
    });

    it('refuses a request without client_id', async () => {
      const response = await token({
        grant_type: 'password',
        username: 'admin',
        password: 'admin',
      });
      expectOAuthError(response, 400, 'invalid_client', 'Missing client_id parameter');
    });

    it('refuses a form with a field sent twice', async () => {
      const response = await token([
        ['client_id', 'agent-client'],
        ['grant_type', 'password'],
        ['username', 'admin'],
        ['username', 'demo'],
        ['password', 'admin'],
      ]);
      expectOAuthError(response, 400, 'invalid_request', 'duplicated parameter');
    });

    it('refuses the password grant for a client without direct access grants', async () => {
      const response = await token({
        client_id: 'agent-service',
        client_secret: serviceClientSecret,
        grant_type: 'password',
        username: 'admin',
        password: 'admin',
      });
      expectOAuthError(
        response,
        400,
        'unauthorized_client',
        'Client not allowed for direct access grants',
      );
    });

    it('refuses a wrong password and an unknown user alike', async () => {
      const wrongPassword = await token({
        client_id: 'agent-client',
        grant_type: 'password',
        username: 'admin',
        password: 'not-the-password',
      });
      expectOAuthError(wrongPassword, 400, 'invalid_grant', 'Invalid user credentials');
      const unknownUser = await token({
        client_id: 'agent-client',
        grant_type: 'password',
        username: 'nobody',
        password: 'admin',
      });
      expectOAuthError(unknownUser, 400, 'invalid_grant', 'Invalid user credentials');
    });

    it('compares passwords exactly and usernames without regard to case, as Keycloak does', async () => {
      const wrongCase = await token({
        client_id: 'agent-client',
        grant_type: 'password',
        username: 'admin',
        password: 'Admin',
      });
      expectOAuthError(wrongCase, 400, 'invalid_grant', 'Invalid user credentials');
      const upperCaseName = await password('ADMIN', 'admin');
      expect(decodeJwt(upperCaseName.access_token).claims.preferred_username).toBe('admin');
      expect((await listTenants(upperCaseName.access_token)).status).toBe(200);
    });

    it('accepts the email address as the username, as loginWithEmailAllowed says', async () => {
      const tokens = await password('demo@agent-cloud.local', 'demo');
      expect(decodeJwt(tokens.access_token).claims.preferred_username).toBe('demo');
    });

    it('refuses a refresh grant without refresh_token', async () => {
      const response = await token({ client_id: 'agent-client', grant_type: 'refresh_token' });
      expectOAuthError(response, 400, 'invalid_request', 'No refresh token');
    });

    it('refuses an expired refresh token as not active', async () => {
      const tokens = await password();
      advanceSeconds(1799);
      const justInTime = await refresh(tokens.refresh_token!);
      expect(justInTime.status).toBe(200);
      advanceSeconds(1801);
      const late = await refresh((justInTime.body as TokenResponseBody).refresh_token!);
      expectOAuthError(late, 400, 'invalid_grant', 'Token is not active');
    });

    it('refuses the refresh token of a session that was logged out', async () => {
      const tokens = await password();
      const logout = await postForm(service.url, `${oidcPath}/logout`, {
        client_id: 'agent-client',
        refresh_token: tokens.refresh_token!,
      });
      expect(logout.status).toBe(204);
      expectOAuthError(
        await refresh(tokens.refresh_token!),
        400,
        'invalid_grant',
        'Session not active',
      );
    });

    it('refuses a refresh token that is unreadable, tampered with, signed by another key or of another type', async () => {
      const tokens = await password('admin', 'admin', { scope: 'openid' });
      const [header, payload, signature] = tokens.refresh_token!.split('.');
      const claims = decodeJwt(tokens.refresh_token!).claims;
      const tampered = `${header}.${Buffer.from(
        JSON.stringify({ ...claims, sub: 'someone-else' }),
      ).toString('base64url')}.${signature}`;
      const foreignKey = await new SignJWT(claims)
        .setProtectedHeader({ alg: 'HS512', typ: 'JWT' })
        .sign(randomBytes(64));
      const unsigned = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString(
        'base64url',
      )}.${payload}.`;
      for (const candidate of [
        'not-a-token',
        tampered,
        foreignKey,
        unsigned,
        tokens.access_token,
        tokens.id_token!,
      ]) {
        expectOAuthError(await refresh(candidate), 400, 'invalid_grant', 'Invalid refresh token');
      }
    });

    it('refuses the refresh token of another client', async () => {
      const tokens = await password();
      const response = await token({
        client_id: 'agent-service',
        client_secret: serviceClientSecret,
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token!,
      });
      expectOAuthError(
        response,
        400,
        'invalid_grant',
        "Invalid refresh token. Token client and authorized client don't match",
      );
    });

    it('refuses a wrong client secret', async () => {
      const inForm = await token({
        client_id: 'agent-service',
        client_secret: 'wrong-secret',
        grant_type: 'client_credentials',
      });
      expectOAuthError(
        inForm,
        401,
        'invalid_client',
        'Invalid client or Invalid client credentials',
      );
      const inHeader = await token(
        { grant_type: 'client_credentials' },
        { authorization: basicAuth('agent-service', 'wrong-secret') },
      );
      expectOAuthError(
        inHeader,
        401,
        'invalid_client',
        'Invalid client or Invalid client credentials',
      );
      const missing = await token({ client_id: 'agent-service', grant_type: 'client_credentials' });
      expect(missing.status).toBe(401);
      expect((missing.body as OAuthErrorBody).error).toBe('invalid_client');
    });
  });

  describe('session lifetime', () => {
    it('caps refresh_expires_in at the end of the session (ssoSessionMaxLifespan 36000)', async () => {
      const start = nowSeconds();
      let current = await password();
      let elapsed = 0;
      while (elapsed + 1700 < 36000) {
        advanceSeconds(1700);
        elapsed += 1700;
        const response = await refresh(current.refresh_token!);
        expect(response.status).toBe(200);
        current = response.body as TokenResponseBody;
        expect(current.refresh_expires_in).toBe(Math.min(1800, 36000 - elapsed));
        expect(decodeJwt(current.refresh_token!).claims.exp).toBe(
          Math.min(nowSeconds() + 1800, start + 36000),
        );
      }
      expect(current.refresh_expires_in).toBe(300);
      advanceSeconds(301);
      expectOAuthError(
        await refresh(current.refresh_token!),
        400,
        'invalid_grant',
        'Token is not active',
      );
    });

    it('lets the last access token of a session expire with the session, as Keycloak does', async () => {
      // Keycloak's TokenManager.getTokenExpiration caps exp at session start + ssoSessionMaxLifespan.
      const start = nowSeconds();
      let current = await password();
      for (let elapsed = 1700; elapsed < 36000; elapsed += 1700) {
        advanceSeconds(1700);
        current = (await refresh(current.refresh_token!)).body as TokenResponseBody;
      }
      expect(current.refresh_expires_in).toBe(300);
      expect(current.expires_in).toBe(300);
      expect(decodeJwt(current.access_token).claims.exp).toBe(start + 36000);
    });
  });

  describe('client credentials', () => {
    it('gives agent-service a token without refresh token or session, with the secret in the form', async () => {
      const response = await token({
        client_id: 'agent-service',
        client_secret: serviceClientSecret,
        grant_type: 'client_credentials',
      });
      expect(response.status).toBe(200);
      expect(Object.keys(response.body as object)).toEqual([
        'access_token',
        'expires_in',
        'refresh_expires_in',
        'token_type',
        'not-before-policy',
        'scope',
      ]);
      expect(response.body).toEqual({
        access_token: expect.any(String),
        expires_in: 600,
        refresh_expires_in: 0,
        token_type: 'Bearer',
        'not-before-policy': 0,
        scope: 'email profile',
      });
      const { header, claims } = decodeJwt((response.body as TokenResponseBody).access_token);
      expect(header).toMatchObject({ alg: 'RS256', typ: 'JWT' });
      expect(claims.jti).toMatch(/^trrtcc:./);
      expect(claims).not.toHaveProperty('sid');
      expect(claims).toMatchObject({
        typ: 'Bearer',
        azp: 'agent-service',
        preferred_username: 'service-account-agent-service',
      });
      expect(relativeOrder(claims, userAccessClaims)).toEqual(
        userAccessClaims.filter((name) => name in claims),
      );
    });

    it('accepts the secret in HTTP Basic, and the token acts as administrator on the API', async () => {
      const response = await token(
        { grant_type: 'client_credentials' },
        { authorization: basicAuth('agent-service', serviceClientSecret) },
      );
      expect(response.status).toBe(200);
      const accessToken = (response.body as TokenResponseBody).access_token;
      expect(response.body).not.toHaveProperty('refresh_token');
      expect(response.body).not.toHaveProperty('session_state');
      const created = await service.request(`${tenantsPath}/create`, {
        method: 'POST',
        token: accessToken,
        body: { id: 'made-by-a-service', label: 'Made by a service' },
      });
      expect(created.status).toBe(201);
    });

    it('is refused to the public agent-client', async () => {
      const response = await token({ client_id: 'agent-client', grant_type: 'client_credentials' });
      // Keycloak's ClientCredentialsGrantType answers 401 for a public client.
      expectOAuthError(
        response,
        401,
        'unauthorized_client',
        'Public client not allowed to retrieve service account',
      );
    });
  });

  describe('authorization code flow with PKCE', () => {
    it('shows a login form, redirects back with state, session_state, iss and code, and exchanges the code', async () => {
      const { verifier, challenge } = pkcePair();
      const state = 'swagger-state-123';
      const page = await browse(authorizeUrl(swaggerAuthorizeParameters(challenge, state)));
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      expect(page.headers.get('content-security-policy')).toEqual(expect.any(String));
      const form = loginForm(page.text);
      expect(form.action.startsWith(issuer)).toBe(true);

      const answer = await submitForm(form.action, [
        ...form.hidden,
        ['username', 'demo'],
        ['password', 'demo'],
      ]);
      expect(answer.status).toBe(302);
      const redirect = new URL(answer.location ?? '');
      expect(`${redirect.origin}${redirect.pathname}`).toBe(registeredRedirectUri);
      expect(redirect.searchParams.get('state')).toBe(state);
      expect(redirect.searchParams.get('iss')).toBe(issuer);
      const sessionState = redirect.searchParams.get('session_state');
      expect(sessionState).toMatch(/^[A-Za-z0-9_-]{24}$/);
      const code = redirect.searchParams.get('code') ?? '';
      expect(code).not.toBe('');

      const exchanged = await exchangeCode(code, verifier);
      expect(exchanged.status).toBe(200);
      expect(Object.keys(exchanged.body as object)).toEqual(tokenResponseFieldsWithIdToken);
      const tokens = exchanged.body as TokenResponseBody;
      expect(tokens).toMatchObject({
        expires_in: 600,
        refresh_expires_in: 1800,
        token_type: 'Bearer',
        session_state: sessionState,
        scope: 'openid email profile',
      });
      const { claims } = decodeJwt(tokens.access_token);
      expect(Object.keys(claims)).toEqual([
        'exp',
        'iat',
        'auth_time',
        ...userAccessClaims.slice(2),
        'tenant_ids',
      ]);
      expect(claims.jti).toMatch(/^onrtac:./);
      expect(claims.auth_time).toBe(nowSeconds());
      expect(claims.sid).toBe(sessionState);
      expect((await listTenants(tokens.access_token)).status).toBe(200);
      expect((await refresh(tokens.refresh_token!)).status).toBe(200);
    });

    it('shows the form again with "Invalid username or password." and no redirect after a wrong password', async () => {
      const { challenge } = pkcePair();
      const page = await browse(authorizeUrl(swaggerAuthorizeParameters(challenge, 'state-1')));
      const form = loginForm(page.text);
      const answer = await submitForm(form.action, [
        ...form.hidden,
        ['username', 'demo'],
        ['password', 'wrong'],
      ]);
      expect(answer.status).toBe(200);
      expect(answer.location).toBeNull();
      expect(answer.text).toContain('Invalid username or password.');
      expect(loginForm(answer.text).hidden).toEqual(form.hidden);
    });

    it('never redirects to an unregistered redirect_uri', async () => {
      const { challenge } = pkcePair();
      for (const redirectUri of [
        'https://evil.example/cb',
        `${registeredRedirectUri}/extra`,
        `${registeredRedirectUri}?next=https://evil.example`,
        `${service.publicBaseUrl}/ctrl/swagger-ui/other.html`,
      ]) {
        const page = await browse(
          authorizeUrl({
            ...swaggerAuthorizeParameters(challenge, 'state-2'),
            redirect_uri: redirectUri,
          }),
        );
        expect({ redirectUri, status: page.status, location: page.location }).toEqual({
          redirectUri,
          status: 400,
          location: null,
        });
        expect(page.text).toContain('Invalid parameter: redirect_uri');
        expect(page.text).not.toContain('<form');
      }
    });

    it('ignores a redirect_uri posted with the login form: the browser returns to the requested one', async () => {
      const { challenge } = pkcePair();
      const page = await browse(authorizeUrl(swaggerAuthorizeParameters(challenge, 'state-3')));
      const form = loginForm(page.text);
      const answer = await submitForm(form.action, [
        ...form.hidden,
        ['redirect_uri', 'https://evil.example/cb'],
        ['username', 'demo'],
        ['password', 'demo'],
      ]);
      expect(answer.status).toBe(302);
      const redirect = new URL(answer.location ?? '');
      expect(`${redirect.origin}${redirect.pathname}`).toBe(registeredRedirectUri);
    });

    it('shows an error page for an unknown client', async () => {
      const { challenge } = pkcePair();
      const page = await browse(
        authorizeUrl({ ...swaggerAuthorizeParameters(challenge, 'state-4'), client_id: 'nobody' }),
      );
      expect(page.status).toBe(400);
      expect(page.location).toBeNull();
      expect(page.text).toContain('Client not found.');
    });

    it('sends error pages with the security headers of the login page', async () => {
      const page = await browse(authorizeUrl({ client_id: 'nobody', response_type: 'code' }));
      expect(page.status).toBe(400);
      expect(page.headers.get('content-security-policy')).toEqual(expect.any(String));
      expect(page.headers.get('x-frame-options')).toBe('DENY');
    });

    it('redirects with invalid_request to the registered URI when the PKCE challenge is missing', async () => {
      const withoutChallenge = swaggerAuthorizeParameters('unused', 'state-5');
      delete withoutChallenge.code_challenge;
      const missingChallenge = await browse(authorizeUrl(withoutChallenge));
      expect(missingChallenge.status).toBe(302);
      const redirect = new URL(missingChallenge.location ?? '');
      expect(`${redirect.origin}${redirect.pathname}`).toBe(registeredRedirectUri);
      expect(redirect.searchParams.get('error')).toBe('invalid_request');
      expect(redirect.searchParams.get('error_description')).toBe(
        'Missing parameter: code_challenge',
      );
      expect(redirect.searchParams.get('state')).toBe('state-5');
      expect(redirect.searchParams.has('code')).toBe(false);

      delete withoutChallenge.code_challenge_method;
      const missingBoth = new URL((await browse(authorizeUrl(withoutChallenge))).location ?? '');
      expect(missingBoth.searchParams.get('error')).toBe('invalid_request');
      expect(missingBoth.searchParams.get('error_description')).toBe(
        'Missing parameter: code_challenge_method',
      );
    });

    it('refuses plain PKCE when the client requires S256, in the words of Keycloak', async () => {
      const { verifier } = pkcePair();
      const answer = await browse(
        authorizeUrl({
          ...swaggerAuthorizeParameters(verifier, 'state-6'),
          code_challenge_method: 'plain',
        }),
      );
      expect(answer.status).toBe(302);
      const redirect = new URL(answer.location ?? '');
      expect(redirect.searchParams.get('error')).toBe('invalid_request');
      // AuthorizationEndpointChecker.checkParamsForPkceEnforcedClient
      expect(redirect.searchParams.get('error_description')).toBe(
        'Invalid parameter: code challenge method is not configured one',
      );
    });

    it('escapes HTML in the state and the username on the login page, and sends a CSP header', async () => {
      const { challenge } = pkcePair();
      const hostileState = '"><script>alert(1)</script>';
      const page = await browse(authorizeUrl(swaggerAuthorizeParameters(challenge, hostileState)));
      expect(page.status).toBe(200);
      expect(page.text).not.toContain('<script');
      expect(page.headers.get('content-security-policy')).toMatch(/default-src/);
      const form = loginForm(page.text);

      const hostileName = '<script>alert("name")</script>';
      const again = await submitForm(form.action, [
        ...form.hidden,
        ['username', hostileName],
        ['password', 'wrong'],
      ]);
      expect(again.status).toBe(200);
      expect(again.text).not.toContain('<script');
      expect(again.text).toContain('Invalid username or password.');
      expect(again.headers.get('content-security-policy')).toMatch(/default-src/);
    });

    it('refuses the exchange without the code verifier', async () => {
      const { code } = await browserSignIn();
      expectOAuthError(
        await exchangeCode(code, undefined),
        400,
        'invalid_grant',
        'PKCE code verifier not specified',
      );
    });

    it('refuses the exchange with a malformed code verifier', async () => {
      const { code } = await browserSignIn();
      expectOAuthError(
        await exchangeCode(code, 'too-short'),
        400,
        'invalid_grant',
        'PKCE verification failed: Invalid code verifier',
      );
    });

    it("refuses the exchange with another login's code verifier, in the words of Keycloak", async () => {
      const { code } = await browserSignIn();
      // Keycloak's PkceUtils.verifyCodeVerifier: a well-formed verifier that does not match.
      expectOAuthError(
        await exchangeCode(code, pkcePair().verifier),
        400,
        'invalid_grant',
        'PKCE verification failed: Code mismatch',
      );
    });

    it('refuses a code used a second time', async () => {
      const { code, verifier } = await browserSignIn();
      expect((await exchangeCode(code, verifier)).status).toBe(200);
      expectOAuthError(await exchangeCode(code, verifier), 400, 'invalid_grant', 'Code not valid');
    });

    it('revokes the tokens of the first exchange when a code is used again, as Keycloak does', async () => {
      // RFC 6749 §4.1.2; Keycloak detaches the client session of a replayed code.
      const { code, verifier } = await browserSignIn();
      const first = (await exchangeCode(code, verifier)).body as TokenResponseBody;
      expect((await exchangeCode(code, verifier)).status).toBe(400);
      const refreshed = await refresh(first.refresh_token!);
      expect(refreshed.status).toBe(400);
      expect((refreshed.body as OAuthErrorBody).error).toBe('invalid_grant');
    });

    it('accepts a code for 60 seconds and refuses it after', async () => {
      const early = await browserSignIn();
      const late = await browserSignIn();
      advanceSeconds(59);
      expect((await exchangeCode(early.code, early.verifier)).status).toBe(200);
      advanceSeconds(2);
      expectOAuthError(
        await exchangeCode(late.code, late.verifier),
        400,
        'invalid_grant',
        'Code not valid',
      );
    });

    it('refuses the exchange when redirect_uri differs from the authorization request or is missing', async () => {
      const first = await browserSignIn();
      expectOAuthError(
        await exchangeCode(first.code, first.verifier, `${registeredRedirectUri}?x=1`),
        400,
        'invalid_grant',
        'Incorrect redirect_uri',
      );
      const second = await browserSignIn();
      expectOAuthError(
        await exchangeCode(second.code, second.verifier, ''),
        400,
        'invalid_grant',
        'Incorrect redirect_uri',
      );
    });
  });

  describe('logout', () => {
    it('ends the session named by a refresh token: 204, then its refresh token is refused', async () => {
      const tokens = await password('demo');
      const logout = await postForm(service.url, `${oidcPath}/logout`, {
        client_id: 'agent-client',
        refresh_token: tokens.refresh_token!,
      });
      expect(logout.status).toBe(204);
      expect(logout.text).toBe('');
      expectOAuthError(
        await refresh(tokens.refresh_token!),
        400,
        'invalid_grant',
        'Session not active',
      );
    });

    it('ends the session of an id_token_hint and returns to a registered post_logout_redirect_uri with state', async () => {
      const tokens = await password('admin', 'admin', { scope: 'openid' });
      const target = `${service.publicBaseUrl}/ctrl/swagger-ui/index.html`;
      const url = new URL(`${issuer}/protocol/openid-connect/logout`);
      url.searchParams.set('id_token_hint', tokens.id_token!);
      url.searchParams.set('post_logout_redirect_uri', target);
      url.searchParams.set('state', 'after-logout');
      const answer = await browse(url.toString());
      expect(answer.status).toBe(302);
      const location = new URL(answer.location ?? '');
      expect(`${location.origin}${location.pathname}`).toBe(target);
      expect(location.searchParams.get('state')).toBe('after-logout');
      expectOAuthError(
        await refresh(tokens.refresh_token!),
        400,
        'invalid_grant',
        'Session not active',
      );
    });

    it('shows an error page for an unregistered post_logout_redirect_uri and keeps the session', async () => {
      const tokens = await password('admin', 'admin', { scope: 'openid' });
      const url = new URL(`${issuer}/protocol/openid-connect/logout`);
      url.searchParams.set('id_token_hint', tokens.id_token!);
      url.searchParams.set('post_logout_redirect_uri', 'https://evil.example/after');
      const answer = await browse(url.toString());
      expect(answer.status).toBe(400);
      expect(answer.location).toBeNull();
      expect(answer.text).toContain('Invalid redirect uri');
      // Keycloak's LogoutEndpoint checks the redirect before it logs anyone out.
      expect((await refresh(tokens.refresh_token!)).status).toBe(200);
    });
  });

  describe('userinfo', () => {
    it("returns the administrator's profile for a valid access token", async () => {
      const accessToken = (await password('admin')).access_token;
      const response = await service.request(`${oidcPath}/userinfo`, { token: accessToken });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        sub: decodeJwt(accessToken).claims.sub,
        email_verified: true,
        name: 'Agent Admin',
        preferred_username: 'admin',
        given_name: 'Agent',
        family_name: 'Admin',
        email: 'admin@agent-cloud.local',
      });
    });

    it("returns a user's profile with tenant_ids", async () => {
      const accessToken = (await password('demo')).access_token;
      const response = await service.request(`${oidcPath}/userinfo`, { token: accessToken });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        sub: decodeJwt(accessToken).claims.sub,
        email_verified: true,
        name: 'Demo User',
        preferred_username: 'demo',
        given_name: 'Demo',
        family_name: 'User',
        email: 'demo@agent-cloud.local',
        tenant_ids: ['demo'],
      });
    });

    it('answers 401 with a Bearer challenge for an invalid token', async () => {
      const accessToken = (await password('demo')).access_token;
      const [header, payload] = accessToken.split('.');
      for (const candidate of ['garbage', `${header}.${payload}.c2lnbmF0dXJl`]) {
        const response = await service.request<OAuthErrorBody>(`${oidcPath}/userinfo`, {
          token: candidate,
        });
        expect(response.status).toBe(401);
        expect(response.headers.get('www-authenticate')).toMatch(
          /^Bearer realm="agent-cloud", error="invalid_token"/,
        );
        expect(response.body.error).toBe('invalid_token');
      }
    });

    it('answers 401 once the session is logged out', async () => {
      const tokens = await password('demo');
      const before = await service.request(`${oidcPath}/userinfo`, { token: tokens.access_token });
      expect(before.status).toBe(200);
      const logout = await postForm(service.url, `${oidcPath}/logout`, {
        client_id: 'agent-client',
        refresh_token: tokens.refresh_token!,
      });
      expect(logout.status).toBe(204);
      const response = await service.request(`${oidcPath}/userinfo`, {
        token: tokens.access_token,
      });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer /);
    });
  });
});

describe('Embedded issuer with a changed realm file', () => {
  let service: TestService;

  beforeAll(async () => {
    const person = (username: string, changes: Record<string, unknown> = {}) => ({
      username,
      enabled: true,
      email: `${username}@agent-cloud.local`,
      emailVerified: true,
      firstName: 'Some',
      lastName: 'Person',
      credentials: [{ type: 'password', value: 'secret', temporary: false }],
      realmRoles: ['default-roles-agent-cloud', 'agent-user'],
      ...changes,
    });
    const file = realmVariant((realm) => {
      realm.users = [
        ...(realm.users ?? []),
        person('disabled-user', { enabled: false }),
        person('no-email', { email: undefined }),
        person('no-first-name', { firstName: undefined }),
        person('no-last-name', { lastName: '' }),
        person('temporary-password', {
          credentials: [{ type: 'password', value: 'secret', temporary: true }],
        }),
      ];
      const agentClient = realm.clients!.find((client) => client.clientId === 'agent-client')!;
      realm.clients = [
        ...realm.clients!,
        { ...agentClient, clientId: 'browser-only', directAccessGrantsEnabled: false },
        { ...agentClient, clientId: 'switched-off', enabled: false },
      ];
    });
    service = await startTestService({ env: { AUTH_REALM_FILE: file } });
  });

  afterAll(async () => {
    await service.close();
  });

  const passwordGrantAs = (username: string, clientId = 'agent-client') =>
    postForm(service.url, tokenPath, {
      client_id: clientId,
      grant_type: 'password',
      username,
      password: 'secret',
    });

  it('refuses a disabled user', async () => {
    expectOAuthError(
      await passwordGrantAs('disabled-user'),
      400,
      'invalid_grant',
      'Account disabled',
    );
  });

  it('refuses users without email, first name or last name as not fully set up', async () => {
    for (const username of ['no-email', 'no-first-name', 'no-last-name']) {
      expectOAuthError(
        await passwordGrantAs(username),
        400,
        'invalid_grant',
        'Account is not fully set up',
      );
    }
  });

  it('refuses a user whose password is temporary as not fully set up', async () => {
    expectOAuthError(
      await passwordGrantAs('temporary-password'),
      400,
      'invalid_grant',
      'Account is not fully set up',
    );
  });

  it('refuses the password grant to a public client with direct access grants off', async () => {
    expectOAuthError(
      await passwordGrantAs('demo', 'browser-only'),
      400,
      'unauthorized_client',
      'Client not allowed for direct access grants',
    );
  });

  it('refuses a disabled client as an unknown one', async () => {
    expectOAuthError(
      await passwordGrantAs('demo', 'switched-off'),
      401,
      'invalid_client',
      'Invalid client or Invalid client credentials',
    );
  });
});

describe('Embedded issuer across restarts', () => {
  let now = Date.now();
  let service: TestService | undefined;

  afterEach(async () => {
    await service?.close();
    service = undefined;
  });

  /** The same service again: same port (so the same issuer), data directory, database and master key. */
  function restartOf(previous: TestService, env: Record<string, string> = {}) {
    return startTestService({
      env: {
        PORT: new URL(previous.publicBaseUrl).port,
        DATA_DIR: previous.dataDir,
        DATABASE_URL: previous.databaseUrl,
        AGENT_MASTER_KEY: previous.masterKey,
        ...env,
      },
      issuerClock: () => now,
    });
  }

  const certs = async (running: TestService) =>
    (await running.request<Jwks>(`${oidcPath}/certs`, { as: 'anonymous' })).body;

  it('keeps its signing key, so tokens issued before a restart still work', async () => {
    const first = await startTestService({ issuerClock: () => now });
    service = first;
    const kid = (await certs(first)).keys[0]?.kid;
    const tokens = (
      await postForm(first.url, tokenPath, {
        client_id: 'agent-client',
        grant_type: 'password',
        username: 'demo',
        password: 'demo',
      })
    ).body as TokenResponseBody;
    await first.close();
    service = undefined;

    service = await restartOf(first);
    expect((await certs(service)).keys.map((key) => key.kid)).toEqual([kid]);
    expect((await service.request(tenantsPath, { token: tokens.access_token })).status).toBe(200);
    now += 60_000;
    const refreshed = await postForm(service.url, tokenPath, {
      client_id: 'agent-client',
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token!,
    });
    expect(refreshed.status).toBe(200);
    expect((refreshed.body as TokenResponseBody).session_state).toBe(tokens.session_state);
  });

  it('ends a session idle longer than a shortened idle timeout, although its refresh token has not expired', async () => {
    const first = await startTestService({ issuerClock: () => now });
    service = first;
    const tokens = (
      await postForm(first.url, tokenPath, {
        client_id: 'agent-client',
        grant_type: 'password',
        username: 'admin',
        password: 'admin',
      })
    ).body as TokenResponseBody;
    await first.close();
    service = undefined;

    const shorterIdle = realmVariant((realm) => {
      realm.ssoSessionIdleTimeout = 600;
    });
    service = await restartOf(first, { AUTH_REALM_FILE: shorterIdle });
    now += 601_000;
    expect(decodeJwt(tokens.refresh_token!).claims.exp).toBeGreaterThan(now / 1000);
    expectOAuthError(
      await postForm(service.url, tokenPath, {
        client_id: 'agent-client',
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token!,
      }),
      400,
      'invalid_grant',
      'Session not active',
    );
  });
});
