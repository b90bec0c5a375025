import { randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import { postForm, type TestService, type TokenResponseBody } from './support/test-service.js';
import {
  oidcPath,
  tenantsPath,
  serviceClientSecret,
  userAccessClaims,
  decodeJwt,
  relativeOrder,
  basicAuth,
  expectOAuthError,
  useIssuer,
  type OAuthErrorBody,
} from './support/issuer-harness.js';

/** The token endpoint's refusals and the client credentials grant, answered as Keycloak 26 answers them (docs/auth.md). */
describe('Embedded issuer: token endpoint errors', () => {
  const issuerTest = useIssuer();
  const { advanceSeconds, token, password, refresh, listTenants } = issuerTest;
  let service: TestService;
  beforeAll(() => {
    ({ service } = issuerTest.context);
  });

  describe('token endpoint errors (as Keycloak 26 answers them)', () => {
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
});
