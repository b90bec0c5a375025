import {
  startTestService,
  type TestService,
  type TokenResponseBody,
  postForm,
  tokenPath,
} from './support/test-service.js';
import {
  authorizeUrl,
  Browser,
  loginForm,
  pkcePair,
  realmPath,
  swaggerAuthorizeParameters,
  type BrowserResponse,
} from './support/browser.js';
import { queryDatabase } from './support/database.js';
import { realmVariant } from './support/realm-variant.js';

/**
 * The login form is bound to the authorization request that showed it, as Keycloak binds it: GET .../auth
 * stores the request server-side and sets the AUTH_SESSION_ID cookie; the form posts to
 * login-actions/authenticate with session_code, execution, client_id and tab_id, which must match what
 * was stored for that cookie. Keycloak's answers: "Cookie not found" (400) when no login page of this
 * browser matches, "Action expired" (the form again) for a stale session_code, "Page has expired" for
 * another execution.
 */

const cookieNotFound = 'Cookie not found. Please make sure cookies are enabled in your browser.';

interface LoginPage {
  page: BrowserResponse;
  action: URL;
  verifier: string;
  state: string;
}

describe('Login form bound to its authorization request', () => {
  let service: TestService;
  let issuer: string;
  let redirectUri: string;
  /** The issuer's clock in milliseconds; tests move it forward, never back. */
  let now = Date.now();

  beforeAll(async () => {
    service = await startTestService({ clock: () => now });
    issuer = `${service.publicBaseUrl}${realmPath}`;
    redirectUri = `${service.publicBaseUrl}/ctrl/swagger-ui/oauth2-redirect.html`;
  });

  afterAll(async () => {
    await service.close();
  });

  async function openLoginPage(browser: Browser, state = 'state-1'): Promise<LoginPage> {
    const { verifier, challenge } = pkcePair();
    const page = await browser.get(
      authorizeUrl(issuer, swaggerAuthorizeParameters(redirectUri, challenge, state)),
    );
    expect(page.status).toBe(200);
    return { page, action: new URL(loginForm(page.text).action), verifier, state };
  }

  const credentials = (password = 'demo'): [string, string][] => [
    ['username', 'demo'],
    ['password', password],
  ];

  function withParameter(action: URL, name: string, value: string): string {
    const changed = new URL(action);
    changed.searchParams.set(name, value);
    return changed.toString();
  }

  const sessionCount = async () =>
    Number(
      (
        await queryDatabase<{ count: string }>(
          service.databaseUrl,
          'SELECT count(*) FROM issuer_session',
        )
      )[0]?.count,
    );

  it('sets an HttpOnly AUTH_SESSION_ID cookie on the realm path and binds the form action to it', async () => {
    const browser = new Browser();
    const { page, action } = await openLoginPage(browser);
    const cookie = page.headers.getSetCookie().find((line) => line.startsWith('AUTH_SESSION_ID='));
    expect(cookie).toBeDefined();
    const attributes = cookie!.split(';').map((part) => part.trim().toLowerCase());
    expect(attributes).toEqual(
      expect.arrayContaining([`path=${realmPath}/`, 'httponly', 'samesite=none', 'secure']),
    );
    expect(`${action.origin}${action.pathname}`).toBe(`${issuer}/login-actions/authenticate`);
    expect([...action.searchParams.keys()].sort()).toEqual([
      'client_id',
      'execution',
      'session_code',
      'tab_id',
    ]);
    expect(action.searchParams.get('client_id')).toBe('agent-client');
    // The authorization request stays on the server: no hidden fields to tamper with.
    expect(loginForm(page.text).hidden).toEqual([]);
  });

  it('keeps the pending authorization request in PostgreSQL, without the cookie or the session code', async () => {
    const browser = new Browser();
    const { action } = await openLoginPage(browser, 'stored-state');
    const rows = await queryDatabase<Record<string, unknown>>(
      service.databaseUrl,
      'SELECT * FROM issuer_auth_session WHERE tab_id = $1',
      [action.searchParams.get('tab_id')],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      client_id: 'agent-client',
      request: expect.objectContaining({ redirect_uri: redirectUri, state: 'stored-state' }),
    });
    const stored = JSON.stringify(rows[0]);
    expect(stored).not.toContain(browser.cookies.value('AUTH_SESSION_ID'));
    expect(stored).not.toContain(action.searchParams.get('session_code'));
  });

  it('refuses a cross-site post of credentials and an authorization request: "Cookie not found", 400, no session', async () => {
    const before = await sessionCount();
    const { challenge } = pkcePair();
    const attacker = new Browser();
    const forged = await attacker.post(`${issuer}/login-actions/authenticate`, [
      ...Object.entries(swaggerAuthorizeParameters(redirectUri, challenge, 'forged')),
      ...credentials(),
    ]);
    expect({ status: forged.status, location: forged.location }).toEqual({
      status: 400,
      location: null,
    });
    expect(forged.text).toContain(cookieNotFound);

    // The action of a real login page, posted by a browser that never loaded it.
    const { action } = await openLoginPage(new Browser());
    const replayed = await attacker.post(action.toString(), credentials());
    expect({ status: replayed.status, location: replayed.location }).toEqual({
      status: 400,
      location: null,
    });
    expect(replayed.text).toContain(cookieNotFound);
    expect(await sessionCount()).toBe(before);
  });

  it('refuses the cookie of one login page with the tab of another browser', async () => {
    const victim = new Browser();
    await openLoginPage(victim);
    const { action } = await openLoginPage(new Browser());
    const answer = await victim.post(action.toString(), credentials());
    expect({ status: answer.status, location: answer.location }).toEqual({
      status: 400,
      location: null,
    });
    expect(answer.text).toContain(cookieNotFound);
  });

  it('shows the form again with "Action expired" for a stale session_code, without signing in', async () => {
    const browser = new Browser();
    const { action } = await openLoginPage(browser);
    const stale = await browser.post(withParameter(action, 'session_code', 'stale'), credentials());
    expect({ status: stale.status, location: stale.location }).toEqual({
      status: 200,
      location: null,
    });
    expect(stale.text).toContain('Action expired. Please continue with login now.');
    const again = await browser.post(loginForm(stale.text).action, credentials());
    expect(again.status).toBe(302);
    expect(new URL(again.location ?? '').searchParams.get('code')).toEqual(expect.any(String));
  });

  it('shows "Page has expired" for an execution that is not the current one, without signing in', async () => {
    const browser = new Browser();
    const { action } = await openLoginPage(browser);
    const answer = await browser.post(withParameter(action, 'execution', 'other'), credentials());
    expect({ status: answer.status, location: answer.location }).toEqual({
      status: 200,
      location: null,
    });
    expect(answer.text).toContain('Page has expired');
  });

  it('signs in once per login page: the same post again issues no second code', async () => {
    const browser = new Browser();
    const { action } = await openLoginPage(browser);
    expect((await browser.post(action.toString(), credentials())).status).toBe(302);
    const replayed = await browser.post(action.toString(), credentials());
    expect({ status: replayed.status, location: replayed.location }).toEqual({
      status: 400,
      location: null,
    });
    expect(replayed.text).toContain(cookieNotFound);
  });

  it('takes the authorization request from the server, not from fields posted with the form', async () => {
    const browser = new Browser();
    const { action, verifier } = await openLoginPage(browser, 'genuine');
    const answer = await browser.post(action.toString(), [
      ['redirect_uri', 'https://evil.example/cb'],
      ['state', 'forged'],
      ['client_id', 'wildcard'],
      ...credentials(),
    ]);
    expect(answer.status).toBe(302);
    const location = new URL(answer.location ?? '');
    expect(`${location.origin}${location.pathname}`).toBe(redirectUri);
    expect(location.searchParams.get('state')).toBe('genuine');
    const exchanged = await postForm(service.url, tokenPath, {
      grant_type: 'authorization_code',
      client_id: 'agent-client',
      code: location.searchParams.get('code') ?? '',
      redirect_uri: redirectUri,
      code_verifier: verifier,
    });
    expect((exchanged.body as TokenResponseBody).access_token).toEqual(expect.any(String));
  });

  it('lets two tabs of one browser sign in, one cookie and a tab_id each', async () => {
    const browser = new Browser();
    const first = await openLoginPage(browser, 'tab-1');
    const cookie = browser.cookies.value('AUTH_SESSION_ID');
    const second = await openLoginPage(browser, 'tab-2');
    expect(browser.cookies.value('AUTH_SESSION_ID')).toBe(cookie);
    expect(second.action.searchParams.get('tab_id')).not.toBe(
      first.action.searchParams.get('tab_id'),
    );
    for (const tab of [second, first]) {
      const answer = await browser.post(tab.action.toString(), credentials());
      expect(answer.status).toBe(302);
      expect(new URL(answer.location ?? '').searchParams.get('state')).toBe(tab.state);
    }
  });

  it('keeps a login page for 1800 seconds (accessCodeLifespanLogin) after its last use, then answers "Cookie not found"', async () => {
    const browser = new Browser();
    const { action } = await openLoginPage(browser);
    now += 1_799_000;
    const wrong = await browser.post(action.toString(), credentials('wrong'));
    expect(wrong.status).toBe(200);
    expect(wrong.text).toContain('Invalid username or password.');
    now += 1_799_000;
    expect((await browser.post(loginForm(wrong.text).action, credentials())).status).toBe(302);

    const late = await openLoginPage(browser);
    now += 1_801_000;
    const answer = await browser.post(late.action.toString(), credentials());
    expect({ status: answer.status, location: answer.location }).toEqual({
      status: 400,
      location: null,
    });
    expect(answer.text).toContain(cookieNotFound);
  });
});

describe('Login form with the login timeout of the realm file', () => {
  let service: TestService;
  let now = Date.now();

  beforeAll(async () => {
    const file = realmVariant((realm) => {
      Object.assign(realm, { accessCodeLifespanLogin: 300 });
    });
    service = await startTestService({ env: { AUTH_REALM_FILE: file }, clock: () => now });
  });

  afterAll(async () => {
    await service.close();
  });

  it('expires a login page after accessCodeLifespanLogin seconds', async () => {
    const issuer = `${service.publicBaseUrl}${realmPath}`;
    const redirectUri = `${service.publicBaseUrl}/ctrl/swagger-ui/oauth2-redirect.html`;
    const open = async (browser: Browser) =>
      loginForm(
        (
          await browser.get(
            authorizeUrl(
              issuer,
              swaggerAuthorizeParameters(redirectUri, pkcePair().challenge, 's'),
            ),
          )
        ).text,
      ).action;
    const browser = new Browser();
    const early = await open(browser);
    const late = await open(browser);
    now += 299_000;
    expect(
      (
        await browser.post(early, [
          ['username', 'demo'],
          ['password', 'demo'],
        ])
      ).status,
    ).toBe(302);
    now += 2_000;
    const expired = await browser.post(late, [
      ['username', 'demo'],
      ['password', 'demo'],
    ]);
    expect(expired.status).toBe(400);
    expect(expired.text).toContain(cookieNotFound);
  });
});
