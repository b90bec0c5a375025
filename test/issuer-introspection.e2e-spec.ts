import { postForm, type ApiResponse, type TestService } from './support/test-service.js';
import {
  basicAuth,
  expectOAuthError,
  oidcPath,
  realmPath,
  serviceClientSecret,
  useIssuer,
  type Discovery,
} from './support/issuer-harness.js';

const introspectPath = `${oidcPath}/token/introspect`;
const revokePath = `${oidcPath}/revoke`;
const service = basicAuth('agent-service', serviceClientSecret);

interface Introspection {
  active: boolean;
  [claim: string]: unknown;
}

/**
 * Token introspection (RFC 7662) and revocation (RFC 7009) as Keycloak 26.7 answers them
 * (TokenIntrospectionEndpoint, TokenRevocationEndpoint): confidential clients introspect any token of
 * the realm, a client revokes its own tokens, and a token that is no longer active says so.
 */
describe('Embedded issuer: introspection and revocation', () => {
  const issuerTest = useIssuer();
  const { password, refresh, token, advanceSeconds } = issuerTest;
  let running: TestService;
  beforeAll(() => {
    running = issuerTest.context.service;
  });

  /** As agent-service (HTTP Basic) unless `authorization` is given; '' sends none. */
  const introspect = (fields: Record<string, string>, authorization = service) =>
    postForm(
      running.url,
      introspectPath,
      fields,
      authorization === '' ? {} : { authorization },
    ) as Promise<ApiResponse<Introspection>>;
  const revoke = (fields: Record<string, string>, headers: Record<string, string> = {}) =>
    postForm(running.url, revokePath, fields, headers);
  const userinfo = (accessToken: string) =>
    running.request(`${oidcPath}/userinfo`, { token: accessToken });

  describe('discovery', () => {
    it('advertises both endpoints, as Keycloak does, and they answer', async () => {
      const discovery = (
        await running.request<Discovery & Record<string, unknown>>(
          `${realmPath}/.well-known/openid-configuration`,
          { as: 'anonymous' },
        )
      ).body;
      const endpoints = `${issuerTest.context.issuer}/protocol/openid-connect`;
      expect(discovery).toMatchObject({
        introspection_endpoint: `${endpoints}/token/introspect`,
        revocation_endpoint: `${endpoints}/revoke`,
        introspection_endpoint_auth_methods_supported: expect.arrayContaining([
          'client_secret_basic',
          'client_secret_post',
        ]) as unknown,
        revocation_endpoint_auth_methods_supported: expect.arrayContaining([
          'client_secret_basic',
        ]) as unknown,
      });
      const tokens = await password('demo');
      const answer = await fetch(discovery.introspection_endpoint as string, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: service,
        },
        body: new URLSearchParams({ token: tokens.access_token }).toString(),
      });
      expect(answer.status).toBe(200);
      expect(((await answer.json()) as Introspection).active).toBe(true);
    });
  });

  describe('introspection', () => {
    it('describes a live access token: its claims, client_id, username, token_type and active', async () => {
      const tokens = await password('demo');
      const answer = await introspect({ token: tokens.access_token });
      expect(answer.status).toBe(200);
      expect(answer.headers.get('cache-control')).toBe('no-store');
      expect(answer.body).toMatchObject({
        active: true,
        typ: 'Bearer',
        token_type: 'Bearer',
        azp: 'agent-client',
        client_id: 'agent-client',
        username: 'demo',
        preferred_username: 'demo',
        sid: tokens.session_state,
        exp: expect.any(Number) as unknown,
        tenant_ids: ['demo'],
      });
    });

    it('describes a refresh token, with the hint or without it, and a service account token', async () => {
      const tokens = await password('demo');
      const requests: Record<string, string>[] = [
        { token: tokens.refresh_token!, token_type_hint: 'refresh_token' },
        { token: tokens.refresh_token! },
      ];
      for (const fields of requests) {
        expect((await introspect(fields)).body).toMatchObject({
          active: true,
          token_type: 'Refresh',
          client_id: 'agent-client',
          username: 'demo',
        });
      }
      const machine = await token({
        grant_type: 'client_credentials',
        client_id: 'agent-service',
        client_secret: serviceClientSecret,
      });
      // client_secret_post works as well as Basic.
      const described = await introspect(
        {
          token: (machine.body as { access_token: string }).access_token,
          client_id: 'agent-service',
          client_secret: serviceClientSecret,
        },
        '',
      );
      expect(described.body).toMatchObject({
        active: true,
        client_id: 'agent-service',
        username: 'service-account-agent-service',
      });
    });

    it('answers only {"active": false} for an expired, ended, foreign or malformed token, and for an ID token', async () => {
      const ended = await password('demo', 'demo', { scope: 'openid' });
      const logout = await postForm(running.url, `${oidcPath}/logout`, {
        client_id: 'agent-client',
        refresh_token: ended.refresh_token!,
      });
      expect(logout.status).toBe(204);
      const [header, payload] = ended.access_token.split('.');
      for (const inactive of [
        ended.access_token,
        ended.refresh_token!,
        ended.id_token!,
        `${header}.${payload}.${'A'.repeat(342)}`,
        'not-a-token',
      ]) {
        const answer = await introspect({ token: inactive });
        expect({ token: inactive, status: answer.status, body: answer.body }).toEqual({
          token: inactive,
          status: 200,
          body: { active: false },
        });
      }
      const expiring = await password('demo');
      advanceSeconds(601);
      expect((await introspect({ token: expiring.access_token })).body).toEqual({
        active: false,
      });
    });

    it('refuses public clients and bad client credentials, and says what a request lacks', async () => {
      const tokens = await password('demo');
      expectOAuthError(
        await introspect({ token: tokens.access_token, client_id: 'agent-client' }, ''),
        403,
        'invalid_request',
        'Client not allowed.',
      );
      expectOAuthError(
        await introspect({ token: tokens.access_token }, basicAuth('agent-service', 'wrong')),
        401,
        'invalid_client',
        'Authentication failed.',
      );
      expectOAuthError(
        await introspect({ token: tokens.access_token }, ''),
        401,
        'invalid_client',
        'Authentication failed.',
      );
      expectOAuthError(await introspect({}), 400, 'invalid_request', 'Token not provided.');
      expectOAuthError(
        await introspect({ token: tokens.access_token, token_type_hint: 'id_token' }),
        400,
        'invalid_request',
        'Unsupported token type [id_token].',
      );
      const twice = await postForm(
        running.url,
        introspectPath,
        [
          ['token', tokens.access_token],
          ['token', tokens.access_token],
        ],
        { authorization: service },
      );
      expectOAuthError(twice, 400, 'invalid_request', 'duplicated parameter');
    });
  });

  describe('revocation', () => {
    it('ends the session of a refresh token: 200 without a body, then the session’s tokens are inactive', async () => {
      const tokens = await password('demo');
      // A public client revokes its own tokens with its client_id alone, as in Keycloak.
      const answer = await revoke({ client_id: 'agent-client', token: tokens.refresh_token! });
      expect(answer.status).toBe(200);
      expect(answer.text).toBe('');
      expectOAuthError(
        await refresh(tokens.refresh_token!),
        400,
        'invalid_grant',
        'Session not active',
      );
      expect((await introspect({ token: tokens.access_token })).body).toEqual({ active: false });
    });

    it('refuses a revoked access token at introspection and userinfo until it expires, and leaves its session alone', async () => {
      const tokens = await password('demo', 'demo', { scope: 'openid' });
      expect((await userinfo(tokens.access_token)).status).toBe(200);

      const answer = await revoke({ client_id: 'agent-client', token: tokens.access_token });
      expect(answer.status).toBe(200);

      expect((await introspect({ token: tokens.access_token })).body).toEqual({ active: false });
      const refused = await userinfo(tokens.access_token);
      expectOAuthError(refused, 401, 'invalid_token', 'Token verification failed');
      // Revoking it again is no error; the refresh token still works.
      expect((await revoke({ client_id: 'agent-client', token: tokens.access_token })).status).toBe(
        200,
      );
      expect((await refresh(tokens.refresh_token!)).status).toBe(200);
      // The API checks tokens on its own, as it does Keycloak's: until expiry it still accepts it.
      expect(
        (await running.request('/ctrl/api/v1.0/tenants', { token: tokens.access_token })).status,
      ).toBe(200);
    });

    it('answers 200 with invalid_token for a token it cannot use, as Keycloak does', async () => {
      const ended = await password('demo');
      await revoke({ client_id: 'agent-client', token: ended.refresh_token! });
      for (const unusable of ['not-a-token', ended.refresh_token!]) {
        expectOAuthError(
          await revoke({ client_id: 'agent-client', token: unusable }),
          200,
          'invalid_token',
          'Invalid token',
        );
      }
    });

    it("refuses another client's token, an ID token, bad client credentials and a request without a token", async () => {
      const tokens = await password('demo', 'demo', { scope: 'openid' });
      expectOAuthError(
        await revoke({ token: tokens.refresh_token! }, { authorization: service }),
        400,
        'invalid_request',
        'Unmatching clients',
      );
      expectOAuthError(
        await revoke({ client_id: 'agent-client', token: tokens.id_token! }),
        400,
        'unsupported_token_type',
        'Unsupported token type',
      );
      expectOAuthError(
        await revoke(
          { token: tokens.refresh_token! },
          { authorization: basicAuth('agent-service', 'wrong') },
        ),
        401,
        'invalid_client',
        'Invalid client or Invalid client credentials',
      );
      expectOAuthError(
        await revoke({ client_id: 'agent-client' }),
        400,
        'invalid_request',
        'Token not provided',
      );
      // None of these changed anything.
      expect((await refresh(tokens.refresh_token!)).status).toBe(200);
    });
  });
});
