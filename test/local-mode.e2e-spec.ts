import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../src/config/load-settings.js';
import { startService, type RunningService } from '../src/bootstrap/start-service.js';
import { call, freePort, passwordGrant } from './support/test-service.js';

/**
 * Local mode: no DATABASE_URL, no AGENT_MASTER_KEY; everything lives in DATA_DIR. The tests share it,
 * in order: the first start (initdb) is the running service's below. The first start of an empty
 * DATA_DIR and the service as a process have files of their own (local-mode-*.e2e-spec.ts).
 */
describe('local mode', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'agent-local-'));
  chmodSync(dataDir, 0o755);
  // No metrics port: a service the developer runs on this machine may hold the default one.
  const env = { NODE_ENV: 'test', PORT: '0', METRICS_PORT: '0', DATA_DIR: dataDir };
  let service: RunningService | undefined;

  afterEach(async () => {
    await service?.close();
    service = undefined;
  });

  const nestContexts = [
    'NestFactory',
    'InstanceLoader',
    'RoutesResolver',
    'RouterExplorer',
    'NestApplication',
  ];

  /** One service for the tests that only look at it: on PORT alone, with metrics, logging at info. */
  describe('one running service', () => {
    let shared: RunningService;
    let port: number;
    const lines: string[] = [];
    beforeAll(async () => {
      port = await freePort();
      shared = await startService({
        env: { ...env, PORT: String(port), METRICS_PORT: 'any' },
        logLevel: 'info',
        logDestination: { write: (line: string) => void lines.push(line) },
      });
    });
    afterAll(() => shared?.close());

    it('keeps the generated master key and the database under DATA_DIR, closed to others', () => {
      expect(statSync(join(dataDir, 'master.key')).mode & 0o777).toBe(0o600);
      expect(statSync(join(dataDir, 'postgres.password')).mode & 0o777).toBe(0o600);
      expect(statSync(join(dataDir, 'postgres', 'PG_VERSION')).isFile()).toBe(true);
      expect(statSync(join(dataDir, 'issuer', 'signing-key.pem')).mode & 0o777).toBe(0o600);
      expect(statSync(join(dataDir, 'issuer', 'refresh-secret')).mode & 0o777).toBe(0o600);
    });

    it('lets webhooks reach loopback only, never the service itself or its database, and says so at start', async () => {
      const { url } = shared;
      const metricsPort = new URL(shared.metricsUrl ?? '').port;
      const databasePort = new URL((shared.dataSource.options as { url: string }).url).port;
      const { access_token: token } = await passwordGrant(url, 'admin', 'admin');
      const authorization = `Bearer ${token}`;
      await call(url, '/ctrl/api/v1.0/tenants/create', {
        method: 'POST',
        headers: { authorization },
        query: { id: 'hooks', label: 'Webhook targets' },
      });
      const subscribe = async (target: string) => {
        const answer = await call<{ errors?: { field: string; message: string }[] }>(
          url,
          '/ctrl/api/v1.0/webhooks/create',
          {
            method: 'POST',
            headers: { authorization, 'x-tenant-id': 'hooks' },
            body: { url: target },
          },
        );
        return { target, status: answer.status, errors: answer.body.errors };
      };
      const refused = (target: string, reason: string) => ({
        target,
        status: 400,
        errors: [{ field: 'url', message: expect.stringContaining(reason) }],
      });
      const answers = [];
      for (const target of [
        `http://127.0.0.1:${port}/ctrl/health/live`,
        `http://localhost:${port}/ctrl/health/live`,
        `http://127.0.0.1:${databasePort}/`,
        `http://127.0.0.1:${metricsPort}/metrics`,
        'http://10.0.0.7:9000/hook',
        'http://192.168.1.2:9000/hook',
        'http://[fd12::1]:9000/hook',
        'http://100.64.0.1:9000/hook',
      ])
        answers.push(await subscribe(target));
      expect(answers).toEqual([
        refused(`http://127.0.0.1:${port}/ctrl/health/live`, `port ${port}`),
        refused(`http://localhost:${port}/ctrl/health/live`, `port ${port}`),
        refused(`http://127.0.0.1:${databasePort}/`, `port ${databasePort}`),
        refused(`http://127.0.0.1:${metricsPort}/metrics`, `port ${metricsPort}`),
        refused('http://10.0.0.7:9000/hook', 'private'),
        refused('http://192.168.1.2:9000/hook', 'private'),
        refused('http://[fd12::1]:9000/hook', 'uniqueLocal'),
        refused('http://100.64.0.1:9000/hook', 'carrierGradeNat'),
      ]);
      // The README's receiver on this machine.
      for (const target of ['http://127.0.0.1:9000/hook', 'http://[::1]:9000/hook'])
        expect((await subscribe(target)).status).toBe(201);
      const announced = lines.filter((line) => line.includes('may reach loopback'));
      expect(announced).toHaveLength(1);
      expect(announced[0]).toContain(`${port}`);
      expect(announced[0]).toContain('production');
    });

    it("on PORT alone, tokens, discovery, the API explorer's login and its links name that port", async () => {
      const origin = `http://localhost:${port}`;
      const service = shared;
      const issuer = `${origin}/auth/realms/agent-cloud`;
      const discovery = await call<{ issuer: string; token_endpoint: string }>(
        service.url,
        '/auth/realms/agent-cloud/.well-known/openid-configuration',
      );
      expect(discovery.body).toMatchObject({
        issuer,
        token_endpoint: `${issuer}/protocol/openid-connect/token`,
      });
      const { access_token: token } = await passwordGrant(service.url, 'demo', 'demo');
      const claims = JSON.parse(
        Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8'),
      ) as { iss: string };
      expect(claims.iss).toBe(issuer);
      const did = await call(service.url, '/ctrl/api/v1.0/did', {
        headers: { 'x-tenant-id': 'demo', authorization: `Bearer ${token}` },
      });
      expect(did.status).toBe(200);
      // The API explorer sends the browser back to this port, and the issuer lets it.
      const init = await call(service.url, '/ctrl/swagger-ui/swagger-ui-init.js');
      expect(init.text).toContain(
        `"oauth2RedirectUrl": "${origin}/ctrl/swagger-ui/oauth2-redirect.html"`,
      );
      const login = (redirectUri: string) =>
        call(service.url, '/auth/realms/agent-cloud/protocol/openid-connect/auth', {
          query: {
            client_id: 'agent-client',
            response_type: 'code',
            scope: 'openid',
            redirect_uri: redirectUri,
            state: 'state',
            code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
            code_challenge_method: 'S256',
          },
        });
      expect((await login(`${origin}/ctrl/swagger-ui/oauth2-redirect.html`)).status).toBe(200);
      const eightyEighty = await login(
        'http://localhost:8080/ctrl/swagger-ui/oauth2-redirect.html',
      );
      expect(eightyEighty.status).toBe(400);
      // The origin agrees with the port: no warning.
      const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(records.filter((record) => record.event === 'start.public-origin')).toEqual([]);
      expect(lines.join('\n')).not.toContain('localhost:8080');
    });

    it("logs the service's start steps at info, and none of Nest's route and module lines", () => {
      const atInfo = lines.map((line) => JSON.parse(line) as { context?: string; phase?: string });
      expect(atInfo.filter((record) => nestContexts.includes(record.context ?? ''))).toEqual([]);
      expect(atInfo.flatMap((record) => record.phase ?? [])).toEqual([
        'database',
        'migrations',
        'http',
        'listening',
      ]);
    });

    it('refuses a second service on the same DATA_DIR with a clear message', async () => {
      await expect(startService({ env, logLevel: 'silent' })).rejects.toThrow(/already in use/);
      const stillServing = await call(shared.url, '/ctrl/health/ready');
      expect(stillServing.status).toBe(200);
    });
  });

  it('keeps tenants and their DIDs across a restart', async () => {
    service = await startService({ env, logLevel: 'silent' });
    const { access_token: token } = await passwordGrant(service.url, 'admin', 'admin');
    const authorization = `Bearer ${token}`;
    const created = await call<{ did: string }>(service.url, '/ctrl/api/v1.0/tenants/create', {
      method: 'POST',
      headers: { authorization },
      query: { id: 'survivor', label: 'Survives restarts' },
    });
    expect(created.status).toBe(201);
    const before = await call<{ id: string; verkey: string }>(service.url, '/ctrl/api/v1.0/did', {
      headers: { 'x-tenant-id': 'survivor', authorization },
    });
    await service.close();

    // The issuer's signing key is kept in DATA_DIR too: a token from before the restart still works.
    service = await startService({ env, logLevel: 'silent' });
    const after = await call<{ id: string; verkey: string }>(service.url, '/ctrl/api/v1.0/did', {
      headers: { 'x-tenant-id': 'survivor', authorization },
    });
    expect(after.status).toBe(200);
    expect(after.body).toEqual(before.body);
    expect(after.body.id).toBe(created.body.did);
  });

  it('refuses to start when AGENT_MASTER_KEY replaces the local key that sealed the stored keys, naming the file and the fix', async () => {
    // DATA_DIR holds keys sealed by the starts above. As after `cp .env.example .env` filled for docker-compose: another master key in the environment.
    const refused: unknown = await startService({
      env: { ...env, AGENT_MASTER_KEY: randomBytes(32).toString('base64') },
      logLevel: 'silent',
    }).then(
      async (started) => {
        await started.close();
        return undefined;
      },
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(ConfigError);
    const message = (refused as Error).message;
    expect(message).toMatch(
      /^AGENT_MASTER_KEY: stored values are sealed under master key [0-9a-f]{32}/,
    );
    expect(message).toContain(`the local master key ${join(dataDir, 'master.key')}`);
    expect(message).toContain('unset AGENT_MASTER_KEY');
    // Without the variable it starts as before.
    service = await startService({ env, logLevel: 'silent' });
    expect((await call(service.url, '/ctrl/health/ready')).status).toBe(200);
  });

  /** One more service for the tests of settings the first must not have, logging at debug. */
  describe('one service with settings of its own', () => {
    let own: RunningService;
    let port: number;
    const lines: string[] = [];
    beforeAll(async () => {
      port = await freePort();
      own = await startService({
        env: {
          ...env,
          PORT: String(port),
          PUBLIC_BASE_URL: 'http://localhost:8080',
          RATE_LIMIT_IP_PER_MINUTE: '2',
        },
        logLevel: 'debug',
        logDestination: { write: (line: string) => void lines.push(line) },
      });
    });
    afterAll(() => own?.close());

    it('warns, naming both, when PUBLIC_BASE_URL names this machine on another port than PORT', () => {
      const warnings = lines
        .map((line) => JSON.parse(line) as { event?: string; level: string; msg: string })
        .filter((record) => record.event === 'start.public-origin');
      expect(warnings).toEqual([expect.objectContaining({ level: 'warn' })]);
      expect(warnings[0]?.msg).toContain('PUBLIC_BASE_URL is http://localhost:8080');
      expect(warnings[0]?.msg).toContain(`PORT=${port}`);
    });

    it("logs Nest's route and module lines at debug", () => {
      const atDebug = lines.map(
        (line) => JSON.parse(line) as { level: string; context?: string; msg: string },
      );
      const mapped = atDebug.filter((record) => record.context === 'RouterExplorer');
      expect(mapped.length).toBeGreaterThan(50);
      expect(mapped.every((record) => record.level === 'debug')).toBe(true);
      expect(mapped.map((record) => record.msg)).toContainEqual(
        expect.stringContaining('Mapped {/, GET}'),
      );
    });

    it('redirects GET / to the API explorer, without a token, within the per-address limit', async () => {
      const answers = [];
      for (let request = 0; request < 3; request++) {
        const home = await call(own.url, '/');
        answers.push({ status: home.status, location: home.headers.get('location') });
      }
      const redirect = { status: 302, location: '/ctrl/swagger-ui/' };
      expect(answers).toEqual([redirect, redirect, { status: 429, location: null }]);
    });
  });
});
