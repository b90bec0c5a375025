import { realmVariant } from './support/realm-variant.js';
import {
  postForm,
  startTestService,
  tokenPath,
  type TestService,
  type TokenResponseBody,
} from './support/test-service.js';
import {
  oidcPath,
  tenantsPath,
  decodeJwt,
  expectOAuthError,
  type Jwks,
} from './support/issuer-harness.js';

/** The embedded issuer reads the realm file as Keycloak imports it, and keeps its keys and sessions across restarts. */
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
      clock: () => now,
    });
  }

  const certs = async (running: TestService) =>
    (await running.request<Jwks>(`${oidcPath}/certs`, { as: 'anonymous' })).body;

  it('keeps its signing key, so tokens issued before a restart still work', async () => {
    const first = await startTestService({ clock: () => now });
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
    const first = await startTestService({ clock: () => now });
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
