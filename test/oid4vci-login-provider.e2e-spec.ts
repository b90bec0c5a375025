import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import pg from 'pg';
import { startForgingProvider, type ForgingProvider } from './support/login-providers.js';
import { expectFieldErrors, expectProblem } from './support/problems.js';
import { startTestService, type TestService } from './support/test-service.js';

type Json = Record<string, unknown>;
const base = '/ctrl/api/v1.0/oid4vci/login-provider';
const secret = 'Very-Secret-Client-Secret-0815';

/**
 * A tenant's login provider over real HTTP and PostgreSQL: the default, setting one (its discovery
 * document fetched and checked), going back, the access rules, the problems, and a secret that no
 * answer, log line or column in the clear ever shows.
 */
describe('OpenID4VCI: the login provider', () => {
  let service: TestService;
  let valid: ForgingProvider;
  let broken: Server;
  let brokenOrigin: string;
  /** What the broken provider answers at its discovery URL, per path prefix. */
  const brokenAnswers: Record<string, (origin: string) => [number, string]> = {
    '/not-found': () => [404, '{}'],
    '/not-json': () => [200, '<html>'],
    '/other-issuer': (origin) => [200, JSON.stringify(discovery(`${origin}/elsewhere`))],
    '/no-s256': (origin) => [
      200,
      JSON.stringify({
        ...discovery(`${origin}/no-s256`),
        code_challenge_methods_supported: ['plain'],
      }),
    ],
    '/no-jwks': (origin) => [
      200,
      JSON.stringify({ ...discovery(`${origin}/no-jwks`), jwks_uri: 7 }),
    ],
    '/huge': () => [200, JSON.stringify({ padding: 'x'.repeat(100_000) })],
  };
  const discovery = (issuer: string) => ({
    issuer,
    authorization_endpoint: `${issuer}/auth`,
    token_endpoint: `${issuer}/token`,
    jwks_uri: `${issuer}/jwks`,
  });
  const lines: string[] = [];

  beforeAll(async () => {
    service = await startTestService({
      // Loopback providers over http, which production refuses.
      env: { STATUS_LIST_ALLOW_PRIVATE_TARGETS: 'true' },
      logDestination: { write: (line) => lines.push(line) },
    });
    for (const id of ['demo', 'other']) await service.client().createTenant({ id, label: id });
    valid = await startForgingProvider();
    broken = createServer((request, response) => {
      const prefix = Object.keys(brokenAnswers).find((path) => request.url?.startsWith(path));
      const [status, body] = prefix === undefined ? [404, ''] : brokenAnswers[prefix](brokenOrigin);
      response.statusCode = status;
      response.setHeader('content-type', 'application/json');
      response.end(body);
    });
    await new Promise<void>((resolve) => broken.listen(0, '127.0.0.1', resolve));
    brokenOrigin = `http://127.0.0.1:${(broken.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await service.close();
    await valid.close();
    await new Promise((resolve) => broken.close(resolve));
  });

  const set = (body: unknown, tenantId = 'demo', as: 'admin' | 'demo' = 'admin') =>
    service.request<Json>(base, { method: 'POST', as, headers: { 'x-tenant-id': tenantId }, body });
  const get = (tenantId = 'demo', as: 'admin' | 'demo' = 'admin') =>
    service.request<Json>(base, { as, headers: { 'x-tenant-id': tenantId } });
  const remove = (tenantId = 'demo', as: 'admin' | 'demo' = 'admin') =>
    service.request(`${base}/delete`, { method: 'POST', as, headers: { 'x-tenant-id': tenantId } });
  const defaultView = (tenantId: string) => ({
    issuer: `${service.publicBaseUrl}/auth/realms/agent-cloud`,
    clientId: 'agent-issuance-login',
    scopes: ['openid', 'profile', 'email'],
    redirectUri: `${service.publicBaseUrl}/ctrl/oid4vci/${tenantId}/login/callback`,
    default: true,
    createdAt: null,
  });

  it('answers the bundled realm for a tenant without one', async () => {
    const answer = await get('demo', 'demo');
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual(defaultView('demo'));
    expect(await service.client('demo').getLoginProvider('demo')).toEqual(defaultView('demo'));
  });

  it('sets a provider whose discovery document is usable, answers it without the secret, and goes back to the default', async () => {
    const answer = await set(
      {
        issuer: valid.issuer,
        clientId: 'demo-issuance',
        clientSecret: secret,
        scopes: ['openid', 'profile'],
      },
      'demo',
      'demo',
    );
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      issuer: valid.issuer,
      clientId: 'demo-issuance',
      scopes: ['openid', 'profile'],
      redirectUri: `${service.publicBaseUrl}/ctrl/oid4vci/demo/login/callback`,
      default: false,
      createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    const read = await get();
    expect(read.body).toEqual(answer.body);
    expect(await get('other')).toMatchObject({ body: defaultView('other') });

    // Replaced whole, the scopes back to the default.
    const replaced = await set({ issuer: valid.issuer, clientId: 'second', clientSecret: secret });
    expect(replaced.body).toMatchObject({
      clientId: 'second',
      scopes: ['openid', 'profile', 'email'],
    });

    await service.client('demo').deleteLoginProvider('demo');
    expect((await get()).body).toEqual(defaultView('demo'));
    expect((await remove()).status).toBe(204);
  });

  it('keeps the secret sealed: in no answer, no log line, no column in the clear', async () => {
    const answers = [
      await set({ issuer: valid.issuer, clientId: 'c', clientSecret: secret }),
      await get(),
      await set({ issuer: `${brokenOrigin}/not-json`, clientId: 'c', clientSecret: secret }),
    ];
    for (const answer of answers) expect(answer.text).not.toContain(secret);
    expect(lines.join('\n')).not.toContain(secret);
    const client = new pg.Client({ connectionString: service.databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query<{ sealed: Buffer; key: string }>(
        'SELECT client_secret_sealed AS sealed, master_key_id AS key FROM oid4vci_login_provider',
      );
      expect(rows).toHaveLength(1);
      expect(rows[0].sealed.includes(Buffer.from(secret))).toBe(false);
      expect(rows[0].key).toMatch(/^[0-9a-f]{32}$/);
    } finally {
      await client.end();
    }
    await remove();
  });

  it.each([
    ['no answer (a closed port)', () => 'http://127.0.0.1:9'],
    ['an HTTP 404', () => `${brokenOrigin}/not-found`],
    ['not JSON', () => `${brokenOrigin}/not-json`],
    ['naming another issuer', () => `${brokenOrigin}/other-issuer`],
    ['without PKCE S256', () => `${brokenOrigin}/no-s256`],
    ['without a jwks_uri', () => `${brokenOrigin}/no-jwks`],
    ['larger than 64 KiB', () => `${brokenOrigin}/huge`],
  ])(
    'refuses an issuer whose discovery gives %s with a 422, and keeps what was set',
    async (_why, issuer) => {
      const problem = expectProblem(
        await set({ issuer: issuer(), clientId: 'c', clientSecret: 'never-stored' }),
        422,
        'LOGIN_PROVIDER_DISCOVERY_FAILED',
        base,
      );
      expectFieldErrors(problem, ['issuer']);
      expect((await get()).body).toEqual(defaultView('demo'));
    },
  );

  it.each([
    ['not a URL', { issuer: 'login.example.com' }, 'issuer'],
    ['not http(s)', { issuer: 'ftp://login.example.com' }, 'issuer'],
    ['with a query', { issuer: 'https://login.example.com/realm?x=1' }, 'issuer'],
    ['with a fragment', { issuer: 'https://login.example.com/realm#x' }, 'issuer'],
    ['with credentials', { issuer: 'https://user:pw@login.example.com' }, 'issuer'],
    ['a cloud metadata address', { issuer: 'http://169.254.169.254/latest' }, 'issuer'],
    ['the service’s own port', { issuer: 'SELF' }, 'issuer'],
    ['no secret', { clientSecret: undefined }, 'clientSecret'],
    ['an empty client id', { clientId: '' }, 'clientId'],
    ['scopes without openid', { scopes: ['profile'] }, 'scopes'],
    ['a scope that is no scope token', { scopes: ['openid', 'a b'] }, 'scopes'],
    ['an unknown field', { extra: true }, 'extra'],
  ])('refuses a body with %s (400, nothing fetched or stored)', async (_why, change, field) => {
    const body: Json = { issuer: valid.issuer, clientId: 'c', clientSecret: 'x', ...change };
    if (body.issuer === 'SELF') body.issuer = `${service.url}/auth/realms/agent-cloud`;
    const problem = expectProblem(await set(body), 400, 'VALIDATION_FAILED', base);
    expectFieldErrors(problem, [field]);
    expect((await get()).body).toEqual(defaultView('demo'));
  });

  it('lets an agent-user act only for its own tenants, and answers 404 for an unknown tenant', async () => {
    const body = { issuer: valid.issuer, clientId: 'c', clientSecret: secret };
    expectProblem(await set(body, 'other', 'demo'), 403, 'FORBIDDEN', base);
    expectProblem(await get('other', 'demo'), 403, 'FORBIDDEN', base);
    expectProblem(await remove('other', 'demo'), 403, 'FORBIDDEN', `${base}/delete`);
    expectProblem(await get('nobody'), 404, 'TENANT_NOT_FOUND', base);
    expectProblem(await set(body, 'nobody'), 404, 'TENANT_NOT_FOUND', base);
    expectProblem(await service.request(base, { as: 'anonymous' }), 401, 'UNAUTHORIZED', base);
  });
});
