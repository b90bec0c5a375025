import { readFileSync } from 'node:fs';
import { defaultRealmFilePath, type RealmFile } from '../src/issuer/realm-file.js';
import {
  authorizeUrl,
  Browser,
  loginForm,
  pkcePair,
  realmPath,
  swaggerAuthorizeParameters,
  type BrowserResponse,
} from './support/browser.js';
import { realmVariant } from './support/realm-variant.js';
import { startTestService, type TestService } from './support/test-service.js';

/**
 * Every page the issuer serves (text/html under /auth) carries the realm's browser security headers,
 * as Keycloak's login pages do. The shipped realm forbids framing altogether (X-Frame-Options DENY,
 * frame-ancestors 'none'), so that no site, not even the app on the same origin, can frame the login.
 */

/** One of each page of the issuer, as a browser meets them. */
async function everyPage(service: TestService): Promise<Record<string, BrowserResponse>> {
  const issuer = `${service.publicBaseUrl}${realmPath}`;
  const redirectUri = `${service.publicBaseUrl}/ctrl/swagger-ui/oauth2-redirect.html`;
  const browser = new Browser();
  const open = async () => {
    const page = await browser.get(
      authorizeUrl(issuer, swaggerAuthorizeParameters(redirectUri, pkcePair().challenge, 'frame')),
    );
    return { page, action: new URL(loginForm(page.text).action) };
  };
  const wrongPassword: [string, string][] = [
    ['username', 'demo'],
    ['password', 'wrong'],
  ];
  const login = await open();
  const otherPage = await open();
  const staleCode = new URL(otherPage.action);
  staleCode.searchParams.set('session_code', 'stale');
  const otherExecution = new URL(otherPage.action);
  otherExecution.searchParams.set('execution', 'other');
  return {
    'login page': login.page,
    'login page after a wrong password': await browser.post(login.action.toString(), wrongPassword),
    'action expired': await browser.post(staleCode.toString(), wrongPassword),
    'page expired': await browser.post(otherExecution.toString(), wrongPassword),
    'cookie not found': await new Browser().post(login.action.toString(), wrongPassword),
    'error page': await browser.get(authorizeUrl(issuer, { client_id: 'nobody' })),
    'logged out': await browser.get(`${issuer}/protocol/openid-connect/logout`),
  };
}

function framingHeaders(pages: Record<string, BrowserResponse>) {
  return Object.fromEntries(
    Object.entries(pages).map(([name, page]) => [
      name,
      {
        type: page.headers.get('content-type')?.split(';')[0],
        xFrameOptions: page.headers.get('x-frame-options'),
        frameAncestors: /frame-ancestors [^;]*/.exec(
          page.headers.get('content-security-policy') ?? '',
        )?.[0],
      },
    ]),
  );
}

describe('Framing of the issuer pages', () => {
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService();
  });

  afterAll(async () => {
    await service.close();
  });

  it("forbids framing every page: X-Frame-Options DENY and frame-ancestors 'none'", async () => {
    const headers = framingHeaders(await everyPage(service));
    for (const name of Object.keys(headers)) {
      expect({ name, ...headers[name] }).toEqual({
        name,
        type: 'text/html',
        xFrameOptions: 'DENY',
        frameAncestors: "frame-ancestors 'none'",
      });
    }
  });

  it('declares the same in the realm file, so that Keycloak sends them too', () => {
    const realm = JSON.parse(readFileSync(defaultRealmFilePath(), 'utf8')) as RealmFile & {
      browserSecurityHeaders?: Record<string, string>;
    };
    expect(realm.browserSecurityHeaders).toMatchObject({
      xFrameOptions: 'DENY',
      contentSecurityPolicy: expect.stringContaining("frame-ancestors 'none'") as unknown,
    });
  });
});

describe('Framing of the issuer pages with a realm file that sets no browserSecurityHeaders', () => {
  let service: TestService;

  beforeAll(async () => {
    const file = realmVariant((realm) => {
      delete (realm as { browserSecurityHeaders?: unknown }).browserSecurityHeaders;
    });
    service = await startTestService({ env: { AUTH_REALM_FILE: file } });
  });

  afterAll(async () => {
    await service.close();
  });

  it("sends Keycloak's defaults: X-Frame-Options SAMEORIGIN and frame-ancestors 'self'", async () => {
    const pages = await everyPage(service);
    const headers = framingHeaders({ 'login page': pages['login page'] });
    expect(headers['login page']).toEqual({
      type: 'text/html',
      xFrameOptions: 'SAMEORIGIN',
      frameAncestors: "frame-ancestors 'self'",
    });
    expect(pages['login page'].headers.get('x-robots-tag')).toBe('none');
  });
});
