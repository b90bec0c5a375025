import { postForm, type TestService } from './support/test-service.js';
import {
  oidcPath,
  decodeJwt,
  expectOAuthError,
  useIssuer,
  type OAuthErrorBody,
} from './support/issuer-harness.js';

/** Logout (browser and back channel) and userinfo, as Keycloak answers them. */
describe('Embedded issuer: logout and userinfo', () => {
  const issuerTest = useIssuer();
  const { password, refresh, browse } = issuerTest;
  let service: TestService;
  let issuer: string;
  beforeAll(() => {
    ({ service, issuer } = issuerTest.context);
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
