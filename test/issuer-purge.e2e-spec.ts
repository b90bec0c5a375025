import { IssuerPurge } from '../src/issuer/issuer-purge.js';
import {
  authorizeUrl,
  Browser,
  loginForm,
  oidcPath,
  pkcePair,
  realmPath,
  swaggerAuthorizeParameters,
} from './support/browser.js';
import { queryDatabase } from './support/database.js';
import { realmVariant } from './support/realm-variant.js';
import {
  postForm,
  startTestService,
  tokenPath,
  type TestService,
  type TokenResponseBody,
} from './support/test-service.js';

/**
 * The issuer's sessions, codes and pending login pages are deleted from PostgreSQL once past their
 * expiry, by a periodic run that starts with the app and stops with it. Tests move the issuer's clock
 * and call the same run the schedule calls.
 */
describe('Purge of expired issuer rows', () => {
  /** The issuer's clock in milliseconds; tests move it forward, never back. */
  let now = Date.now();
  let service: TestService;
  /** A second instance on the same database. */
  let other: TestService | undefined;

  beforeAll(async () => {
    // A short maximum session lifespan, so that one test can pass it (idle timeout: 1800 s).
    const file = realmVariant((realm) => {
      realm.ssoSessionMaxLifespan = 3000;
    });
    service = await startTestService({ env: { AUTH_REALM_FILE: file }, clock: () => now });
    // The same master key: the instances share the sealed keys (the certificate authority's among them).
    other = await startTestService({
      env: {
        AUTH_REALM_FILE: file,
        DATABASE_URL: service.databaseUrl,
        AGENT_MASTER_KEY: service.masterKey,
      },
      clock: () => now,
    });
  });

  afterAll(async () => {
    await other?.close();
    await service.close();
  });

  const advanceSeconds = (seconds: number) => {
    now += seconds * 1000;
  };

  const password = async () =>
    (
      await postForm(service.url, tokenPath, {
        grant_type: 'password',
        client_id: 'agent-client',
        username: 'demo',
        password: 'demo',
      })
    ).body as TokenResponseBody;

  const refresh = (tokens: TokenResponseBody) =>
    postForm(service.url, tokenPath, {
      grant_type: 'refresh_token',
      client_id: 'agent-client',
      refresh_token: tokens.refresh_token!,
    });

  const redirectUri = () => `${service.publicBaseUrl}/ctrl/swagger-ui/oauth2-redirect.html`;

  async function openLoginPage(browser: Browser, challenge: string): Promise<URL> {
    const page = await browser.get(
      authorizeUrl(
        `${service.publicBaseUrl}${realmPath}`,
        swaggerAuthorizeParameters(redirectUri(), challenge, 'purge'),
      ),
    );
    return new URL(loginForm(page.text).action);
  }

  /** Signs in on the login page; the code's session id comes back as session_state. */
  async function codeFlow(): Promise<{ code: string; sessionId: string; verifier: string }> {
    const browser = new Browser();
    const { verifier, challenge } = pkcePair();
    const action = await openLoginPage(browser, challenge);
    const answer = await browser.post(action.toString(), [
      ['username', 'demo'],
      ['password', 'demo'],
    ]);
    const location = new URL(answer.location ?? '');
    return {
      code: location.searchParams.get('code') ?? '',
      sessionId: location.searchParams.get('session_state') ?? '',
      verifier,
    };
  }

  const ids = async (sql: string, values: unknown[]) =>
    (await queryDatabase<{ id: string }>(service.databaseUrl, sql, values)).map((row) => row.id);

  const sessionsAmong = (sessionIds: string[]) =>
    ids('SELECT id FROM issuer_session WHERE id = ANY($1) ORDER BY id', [sessionIds]);
  const codesOf = (sessionIds: string[]) =>
    ids('SELECT session_id AS id FROM issuer_code WHERE session_id = ANY($1) ORDER BY 1', [
      sessionIds,
    ]);
  const loginPagesAmong = (tabIds: string[]) =>
    ids('SELECT tab_id AS id FROM issuer_auth_session WHERE tab_id = ANY($1) ORDER BY 1', [tabIds]);

  /** Codes that expired 100 seconds ago, written straight into the table. */
  async function insertExpiredCodes(count: number, sessionId: string): Promise<void> {
    await queryDatabase(
      service.databaseUrl,
      `INSERT INTO issuer_code (code_hash, session_id, client_id, redirect_uri, scope, expires_at)
       SELECT md5($1 || n::text) || md5(n::text), $1, 'agent-client', 'https://example.test/cb', 'openid',
              to_timestamp($2::double precision)
       FROM generate_series(1, $3::integer) AS n`,
      [sessionId, now / 1000 - 100, count],
    );
  }

  it('runs on a schedule while the app runs', () => {
    expect(service.app.get(IssuerPurge).scheduled).toBe(true);
  });

  it('deletes sessions, codes and login pages past their expiry and keeps the live ones', async () => {
    const idle = await password();
    const ended = await password();
    await postForm(service.url, `${oidcPath}/logout`, {
      client_id: 'agent-client',
      refresh_token: ended.refresh_token!,
    });
    const capped = await password();
    const staleTab = (await openLoginPage(new Browser(), pkcePair().challenge)).searchParams.get(
      'tab_id',
    )!;

    advanceSeconds(1500);
    const cappedAgain = await refresh(capped);
    expect(cappedAgain.status).toBe(200);
    const live = await password();
    const usedUp = await codeFlow();

    advanceSeconds(1400);
    expect((await refresh(cappedAgain.body as TokenResponseBody)).status).toBe(200);

    // Now: idle has been idle 3100 s (> 1800), capped started 3100 s ago (> 3000), live is 1600 s idle.
    advanceSeconds(200);
    const liveTab = (await openLoginPage(new Browser(), pkcePair().challenge)).searchParams.get(
      'tab_id',
    )!;
    const fresh = await codeFlow();
    const sessionIds = [
      idle.session_state!,
      ended.session_state!,
      capped.session_state!,
      live.session_state!,
      usedUp.sessionId,
      fresh.sessionId,
    ];

    const purged = await service.app.get(IssuerPurge).purgeExpired();

    expect(purged).toEqual({
      sessions: expect.any(Number),
      codes: expect.any(Number),
      loginPages: expect.any(Number),
      revokedTokens: expect.any(Number),
    });
    expect(await sessionsAmong(sessionIds)).toEqual(
      [live.session_state!, usedUp.sessionId, fresh.sessionId].sort(),
    );
    expect(await codesOf([usedUp.sessionId, fresh.sessionId])).toEqual([fresh.sessionId]);
    expect(await loginPagesAmong([staleTab, liveTab])).toEqual([liveTab]);
    // What stays still works.
    expect((await refresh(live)).status).toBe(200);
    const exchanged = await postForm(service.url, tokenPath, {
      grant_type: 'authorization_code',
      client_id: 'agent-client',
      code: fresh.code,
      redirect_uri: redirectUri(),
      code_verifier: fresh.verifier,
    });
    expect(exchanged.status).toBe(200);
  });

  it('deletes in batches until nothing expired is left', async () => {
    await insertExpiredCodes(2500, 'bulk-batches');
    const purged = await service.app.get(IssuerPurge).purgeExpired();
    expect(purged.codes).toBeGreaterThanOrEqual(2500);
    expect(await codesOf(['bulk-batches'])).toEqual([]);
  });

  it('deletes each row once when several instances purge the same database at the same time', async () => {
    await insertExpiredCodes(3000, 'bulk-instances');
    const runs = await Promise.all([
      service.app.get(IssuerPurge).purgeExpired(),
      other!.app.get(IssuerPurge).purgeExpired(),
    ]);
    expect(runs[0].codes + runs[1].codes).toBe(3000);
    expect(await codesOf(['bulk-instances'])).toEqual([]);
  });

  it('keeps every batch bounded when the statistics say the table is empty, as they may after a purge', async () => {
    // A purge that empties the table leaves dead rows only; ANALYZE (autovacuum's, here by hand) then
    // records pages without a live row, and a plan chosen for an empty table meets the next backlog.
    await insertExpiredCodes(2000, 'bulk-emptied');
    advanceSeconds(3600);
    await service.app.get(IssuerPurge).purgeExpired();
    expect(await queryDatabase(service.databaseUrl, 'SELECT 1 FROM issuer_code')).toEqual([]);
    await queryDatabase(service.databaseUrl, 'ANALYZE issuer_code');
    await insertExpiredCodes(20_000, 'bulk-backlog');
    const runs = await Promise.all([
      service.app.get(IssuerPurge).purgeExpired(),
      other!.app.get(IssuerPurge).purgeExpired(),
    ]);
    expect(runs[0].codes + runs[1].codes).toBe(20_000);
    expect(await codesOf(['bulk-backlog'])).toEqual([]);
  });

  it('stops its schedule when the app shuts down', async () => {
    const purge = other!.app.get(IssuerPurge);
    expect(purge.scheduled).toBe(true);
    await other!.close();
    other = undefined;
    expect(purge.scheduled).toBe(false);
  });
});
