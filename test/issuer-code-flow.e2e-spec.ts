import { loginForm, pkcePair } from './support/browser.js';
import { type TestService, type TokenResponseBody } from './support/test-service.js';
import {
  userAccessClaims,
  tokenResponseFieldsWithIdToken,
  decodeJwt,
  expectOAuthError,
  useIssuer,
  type OAuthErrorBody,
} from './support/issuer-harness.js';

/** The browser login of the Swagger UI: authorization code flow with PKCE, as Keycloak runs it. */
describe('Embedded issuer: authorization code flow', () => {
  const issuerTest = useIssuer();
  const {
    advanceSeconds,
    nowSeconds,
    refresh,
    listTenants,
    authorizeUrl,
    swaggerAuthorizeParameters,
    browserSignIn,
    exchangeCode,
    browse,
    submitForm,
  } = issuerTest;
  let service: TestService;
  let issuer: string;
  let registeredRedirectUri: string;
  beforeAll(() => {
    ({ service, issuer, registeredRedirectUri } = issuerTest.context);
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
});
