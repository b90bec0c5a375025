import {
  postForm,
  startTestService,
  tokenPath,
  type TestService,
  type TokenResponseBody,
} from './support/test-service.js';
import {
  authorizeUrl,
  Browser,
  loginForm,
  pkcePair,
  realmPath,
  swaggerAuthorizeParameters,
} from './support/browser.js';
import { realmVariant } from './support/realm-variant.js';

/**
 * Redirect URIs are matched as Keycloak 26's RedirectUtils matches them: percent-decoded (up to five
 * times), normalised (`.` and `..` segments resolved), then compared with the registered URIs, a
 * trailing `*` matching any path below. The browser is sent to the normalised URI.
 */

/** Ways out of `/ctrl/swagger-ui/` that a raw prefix match would let through. */
function escapes(base: string): string[] {
  const below = `${base}/ctrl/swagger-ui`;
  return [
    `${below}/../../evil`,
    `${below}/./../../evil`,
    `${below}/%2e%2e/%2E%2E/evil`,
    `${below}/..%2F..%2Fevil`,
    `${below}/%252e%252e/%252e%252e/evil`,
    `${below}/x%3F/../../../evil`,
    `${below}/%zz`,
  ];
}

describe('Redirect URI matching of the embedded issuer', () => {
  let service: TestService;
  let base: string;
  let issuer: string;

  beforeAll(async () => {
    const file = realmVariant((realm) => {
      const agentClient = realm.clients!.find((client) => client.clientId === 'agent-client')!;
      realm.clients!.push({
        ...agentClient,
        clientId: 'wildcard-client',
        redirectUris: ['${PUBLIC_BASE_URL}/ctrl/swagger-ui/*'],
      });
    });
    service = await startTestService({ env: { AUTH_REALM_FILE: file } });
    base = service.publicBaseUrl;
    issuer = `${base}${realmPath}`;
  });

  afterAll(async () => {
    await service.close();
  });

  describe('redirect_uri at the authorization endpoint', () => {
    const authorize = (browser: Browser, redirectUri: string, state: string) =>
      browser.get(
        authorizeUrl(issuer, {
          ...swaggerAuthorizeParameters(redirectUri, pkcePair().challenge, state),
          client_id: 'wildcard-client',
        }),
      );

    it('refuses a URI that leaves the wildcard path once normalised or decoded, with no redirect', async () => {
      const browser = new Browser();
      for (const redirectUri of escapes(base)) {
        const page = await authorize(browser, redirectUri, 'escape');
        expect({ redirectUri, status: page.status, location: page.location }).toEqual({
          redirectUri,
          status: 400,
          location: null,
        });
        expect(page.text).toContain('Invalid parameter: redirect_uri');
        expect(page.text).not.toContain('<form');
      }
    });

    it('sends the browser to the normalised URI and takes the code with the URI as requested', async () => {
      const browser = new Browser();
      const { verifier, challenge } = pkcePair();
      const requested = `${base}/ctrl/swagger-ui/./oauth2-redirect.html`;
      const page = await browser.get(
        authorizeUrl(issuer, {
          ...swaggerAuthorizeParameters(requested, challenge, 'dot'),
          client_id: 'wildcard-client',
        }),
      );
      expect(page.status).toBe(200);
      const form = loginForm(page.text);
      const answer = await browser.post(form.action, [
        ...form.hidden,
        ['username', 'demo'],
        ['password', 'demo'],
      ]);
      expect(answer.status).toBe(302);
      expect(answer.location).toMatch(
        new RegExp(`^${base}/ctrl/swagger-ui/oauth2-redirect\\.html\\?`),
      );
      const location = new URL(answer.location ?? '');
      expect(location.searchParams.get('state')).toBe('dot');
      // Keycloak compares the token request's redirect_uri with the parameter as it was sent.
      const exchanged = await postForm(service.url, tokenPath, {
        grant_type: 'authorization_code',
        client_id: 'wildcard-client',
        code: location.searchParams.get('code') ?? '',
        redirect_uri: requested,
        code_verifier: verifier,
      });
      expect(exchanged.status).toBe(200);
    });
  });

  describe('post_logout_redirect_uri at the logout endpoint', () => {
    const signIn = async () =>
      (
        await postForm(service.url, tokenPath, {
          grant_type: 'password',
          client_id: 'agent-client',
          username: 'admin',
          password: 'admin',
          scope: 'openid',
        })
      ).body as TokenResponseBody;

    const logout = (idToken: string, target: string) => {
      const url = new URL(`${issuer}/protocol/openid-connect/logout`);
      url.searchParams.set('id_token_hint', idToken);
      url.searchParams.set('post_logout_redirect_uri', target);
      url.searchParams.set('state', 'after-logout');
      return new Browser().get(url.toString());
    };

    it('refuses a URI that leaves the wildcard path once normalised or decoded, and ends nothing', async () => {
      const tokens = await signIn();
      for (const target of escapes(base)) {
        const answer = await logout(tokens.id_token!, target);
        expect({ target, status: answer.status, location: answer.location }).toEqual({
          target,
          status: 400,
          location: null,
        });
        expect(answer.text).toContain('Invalid redirect uri');
      }
      const refreshed = await postForm(service.url, tokenPath, {
        grant_type: 'refresh_token',
        client_id: 'agent-client',
        refresh_token: tokens.refresh_token!,
      });
      expect(refreshed.status).toBe(200);
    });

    it('returns to the normalised URI of an allowed one', async () => {
      const tokens = await signIn();
      const answer = await logout(tokens.id_token!, `${base}/ctrl/swagger-ui/docs/../index.html`);
      expect(answer.status).toBe(302);
      expect(answer.location).toBe(`${base}/ctrl/swagger-ui/index.html?state=after-logout`);
      const refreshed = await postForm(service.url, tokenPath, {
        grant_type: 'refresh_token',
        client_id: 'agent-client',
        refresh_token: tokens.refresh_token!,
      });
      expect(refreshed.status).toBe(400);
    });
  });
});
