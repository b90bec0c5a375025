import { createRemoteJWKSet, jwtVerify } from 'jose';
import { type TestService, type TokenResponseBody } from './support/test-service.js';
import {
  realmPath,
  oidcPath,
  userAccessClaims,
  refreshClaims,
  tokenResponseFields,
  tokenResponseFieldsWithIdToken,
  decodeJwt,
  expectOAuthError,
  useIssuer,
  type Discovery,
  type Jwks,
} from './support/issuer-harness.js';

/** The password grant flow and the tokens the embedded issuer signs, held to Keycloak 26.7's shapes (docs/auth.md): what a client written against Keycloak 26.7 sees must be what it sees here. */
describe('Embedded issuer: tokens', () => {
  const issuerTest = useIssuer();
  const { advanceSeconds, nowSeconds, token, password, refresh, listTenants } = issuerTest;
  let service: TestService;
  let issuer: string;
  beforeAll(() => {
    ({ service, issuer } = issuerTest.context);
  });

  describe('the password grant flow', () => {
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
        currentDate: new Date(nowSeconds() * 1000),
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
});
