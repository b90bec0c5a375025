import { randomBytes } from 'node:crypto';
import { createServer, type AddressInfo } from 'node:net';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../src/config/load-settings.js';
import { startService, type RunningService } from '../src/bootstrap/start-service.js';
import { call, freePort, passwordGrant } from './support/test-service.js';
import { AppProcess } from './system/support/app-process.js';
import { Cleanup } from './system/support/cleanup.js';

/** Local mode: no DATABASE_URL, no AGENT_MASTER_KEY; everything lives in DATA_DIR. */
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

  it('keeps the generated master key and the database under DATA_DIR, closed to others', async () => {
    service = await startService({ env, logLevel: 'silent' });
    expect(statSync(join(dataDir, 'master.key')).mode & 0o777).toBe(0o600);
    expect(statSync(join(dataDir, 'postgres.password')).mode & 0o777).toBe(0o600);
    expect(statSync(join(dataDir, 'postgres', 'PG_VERSION')).isFile()).toBe(true);
    expect(statSync(join(dataDir, 'issuer', 'signing-key.pem')).mode & 0o777).toBe(0o600);
    expect(statSync(join(dataDir, 'issuer', 'refresh-secret')).mode & 0o777).toBe(0o600);
  });

  it('lets webhooks reach loopback only, never the service itself or its database, and says so at start', async () => {
    const lines: string[] = [];
    service = await startService({
      env: { ...env, METRICS_PORT: 'any' },
      logLevel: 'info',
      logDestination: { write: (line: string) => void lines.push(line) },
    });
    const { url } = service;
    const port = new URL(url).port;
    const metricsPort = new URL(service.metricsUrl ?? '').port;
    const databasePort = new URL((service.dataSource.options as { url: string }).url).port;
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

  it("creates the demo user's tenant on a first start, says so, and never again once tenants exist", async () => {
    const firstStart = mkdtempSync(join(tmpdir(), 'agent-local-first-'));
    chmodSync(firstStart, 0o755);
    const freshEnv = { ...env, DATA_DIR: firstStart };
    const lines: string[] = [];
    service = await startService({
      env: freshEnv,
      logLevel: 'info',
      logDestination: { write: (line: string) => void lines.push(line) },
    });
    const demo = `Bearer ${(await passwordGrant(service.url, 'demo', 'demo')).access_token}`;
    const did = await call<{ id: string }>(service.url, '/ctrl/api/v1.0/did', {
      headers: { 'x-tenant-id': 'demo', authorization: demo },
    });
    expect(did.status).toBe(200);
    expect(did.body.id).toMatch(/^did:key:z6Mk/);
    expect(lines.map((line) => JSON.parse(line) as Record<string, unknown>)).toContainEqual(
      expect.objectContaining({ event: 'local-mode.tenant-created', tenantId: 'demo' }),
    );

    // Deleted while another tenant exists, it stays deleted across a restart.
    const admin = `Bearer ${(await passwordGrant(service.url, 'admin', 'admin')).access_token}`;
    for (const [path, query] of [
      ['/ctrl/api/v1.0/tenants/create', { id: 'other', label: 'Other' }],
      ['/ctrl/api/v1.0/tenants/demo/delete', {}],
    ] as const) {
      const answer = await call(service.url, path, {
        method: 'POST',
        headers: { authorization: admin },
        query,
      });
      expect(answer.status).toBeLessThan(300);
    }
    await service.close();
    service = await startService({ env: freshEnv, logLevel: 'silent' });
    const gone = await call(service.url, '/ctrl/api/v1.0/tenants/demo', {
      headers: { authorization: admin },
    });
    expect(gone.status).toBe(404);
  });

  it('gives the demo tenant two credential configurations at the first start, ready for an offer; a deleted one is not made again', async () => {
    const firstStart = mkdtempSync(join(tmpdir(), 'agent-local-demo-'));
    chmodSync(firstStart, 0o755);
    const freshEnv = { ...env, DATA_DIR: firstStart };
    service = await startService({ env: freshEnv, logLevel: 'silent' });
    const demo = `Bearer ${(await passwordGrant(service.url, 'demo', 'demo')).access_token}`;
    const headers = { 'x-tenant-id': 'demo', authorization: demo };
    const base = '/ctrl/api/v1.0/oid4vci/credential-configurations';
    const ids = async () => {
      const page = await call<{ content: { id: string; format: string }[] }>(service!.url, base, {
        headers,
        query: { sort: 'id,asc' },
      });
      expect(page.status).toBe(200);
      return page.body.content.map(({ id, format }) => `${id} ${format}`);
    };
    expect(await ids()).toEqual(['EmployeeBadge_ldp_vc ldp_vc', 'EmployeeBadge_sd_jwt dc+sd-jwt']);
    const offer = await call<{ credentialOfferUri: string }>(
      service.url,
      '/ctrl/api/v1.0/oid4vci/offers',
      {
        method: 'POST',
        headers,
        body: {
          credentialConfigurationId: 'EmployeeBadge_sd_jwt',
          claims: { given_name: 'Erika', employee_id: 'E-1042' },
        },
      },
    );
    expect(offer.status).toBe(201);
    expect(offer.body.credentialOfferUri).toMatch(/^openid-credential-offer:/);

    const deleted = await call(service.url, `${base}/EmployeeBadge_ldp_vc/delete`, {
      method: 'POST',
      headers,
    });
    expect(deleted.status).toBe(204);
    await service.close();
    service = await startService({ env: freshEnv, logLevel: 'silent' });
    expect(await ids()).toEqual(['EmployeeBadge_sd_jwt dc+sd-jwt']);
  });

  it('refuses to start when AGENT_MASTER_KEY replaces the local key that sealed the stored keys, naming the file and the fix', async () => {
    service = await startService({ env, logLevel: 'silent' });
    await service.close();
    service = undefined;
    // As after `cp .env.example .env` filled for docker-compose: another master key in the environment.
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

  it("on PORT alone, tokens, discovery, the API explorer's login and its links name that port", async () => {
    const port = await freePort();
    const origin = `http://localhost:${port}`;
    const lines: string[] = [];
    service = await startService({
      env: { ...env, PORT: String(port) },
      logLevel: 'info',
      logDestination: { write: (line: string) => void lines.push(line) },
    });
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
      call(service!.url, '/auth/realms/agent-cloud/protocol/openid-connect/auth', {
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
    const eightyEighty = await login('http://localhost:8080/ctrl/swagger-ui/oauth2-redirect.html');
    expect(eightyEighty.status).toBe(400);
    // The origin agrees with the port: no warning.
    const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(records.filter((record) => record.event === 'start.public-origin')).toEqual([]);
    expect(lines.join('\n')).not.toContain('localhost:8080');
  });

  it('warns, naming both, when PUBLIC_BASE_URL names this machine on another port than PORT', async () => {
    const port = await freePort();
    const lines: string[] = [];
    service = await startService({
      env: { ...env, PORT: String(port), PUBLIC_BASE_URL: 'http://localhost:8080' },
      logLevel: 'warn',
      logDestination: { write: (line: string) => void lines.push(line) },
    });
    const warnings = lines
      .map((line) => JSON.parse(line) as { event?: string; msg: string })
      .filter((record) => record.event === 'start.public-origin');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.msg).toContain('PUBLIC_BASE_URL is http://localhost:8080');
    expect(warnings[0]?.msg).toContain(`PORT=${port}`);
  });

  it("logs the service's start steps at info and Nest's route and module lines at debug only", async () => {
    const start = async (logLevel: 'info' | 'debug') => {
      const lines: string[] = [];
      service = await startService({
        env,
        logLevel,
        logDestination: { write: (line: string) => void lines.push(line) },
      });
      await service.close();
      service = undefined;
      return lines.map(
        (line) =>
          JSON.parse(line) as { level: string; context?: string; msg: string; phase?: string },
      );
    };
    const nestContexts = [
      'NestFactory',
      'InstanceLoader',
      'RoutesResolver',
      'RouterExplorer',
      'NestApplication',
    ];
    const atInfo = await start('info');
    expect(atInfo.filter((record) => nestContexts.includes(record.context ?? ''))).toEqual([]);
    expect(atInfo.flatMap((record) => record.phase ?? [])).toEqual([
      'database',
      'migrations',
      'http',
      'listening',
    ]);
    const atDebug = await start('debug');
    const mapped = atDebug.filter((record) => record.context === 'RouterExplorer');
    expect(mapped.length).toBeGreaterThan(50);
    expect(mapped.every((record) => record.level === 'debug')).toBe(true);
    expect(mapped.map((record) => record.msg)).toContainEqual(
      expect.stringContaining('Mapped {/, GET}'),
    );
  });

  it('redirects GET / to the API explorer, without a token, within the per-address limit', async () => {
    service = await startService({
      env: { ...env, RATE_LIMIT_IP_PER_MINUTE: '2' },
      logLevel: 'silent',
    });
    const answers = [];
    for (let request = 0; request < 3; request++) {
      const home = await call(service.url, '/');
      answers.push({ status: home.status, location: home.headers.get('location') });
    }
    const redirect = { status: 302, location: '/ctrl/swagger-ui/' };
    expect(answers).toEqual([redirect, redirect, { status: 429, location: null }]);
  });

  it('refuses a second service on the same DATA_DIR with a clear message', async () => {
    service = await startService({ env, logLevel: 'silent' });
    await expect(startService({ env, logLevel: 'silent' })).rejects.toThrow(/already in use/);
    const stillServing = await call(service.url, '/ctrl/health/ready');
    expect(stillServing.status).toBe(200);
  });
});

/**
 * `kill -9` of the service: its watchdog stops the embedded PostgreSQL (docs/operations.md); were the
 * watchdog gone too, the next start stops that orphan. Both come up on the same data, as `npm start`
 * runs the service (a child process).
 */
describe('local mode after kill -9', () => {
  const cleanup = new Cleanup();
  afterAll(() => cleanup.run(), 60_000);

  const alive = (pid: number) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };

  /** Polls `condition` every 100 ms until it holds, failing after `timeoutMs` (never a fixed wait). */
  const eventually = async (condition: () => boolean, timeoutMs: number, what: string) => {
    const deadline = Date.now() + timeoutMs;
    while (!condition()) {
      if (Date.now() > deadline) throw new Error(`${what} did not happen within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  /** The watchdog of the cluster under `dataDir`, by its command line (Linux's /proc). */
  const watchdogOf = (dataDir: string): number | undefined => {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const command = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
        if (
          command.some((part) => part.endsWith('embedded-postgres-watchdog.js')) &&
          command.includes(join(dataDir, 'postgres'))
        )
          return Number(entry);
      } catch {
        // Gone meanwhile.
      }
    }
    return undefined;
  };

  const startIn = async (dataDir: string, name: string) => {
    const port = await freePort();
    return AppProcess.start(
      {
        name,
        port,
        cwd: cleanup.tempDir(`${name}-cwd`),
        env: { DATA_DIR: dataDir, PUBLIC_BASE_URL: `http://127.0.0.1:${port}` },
      },
      cleanup,
      120_000,
    );
  };

  const postmasterOf = (dataDir: string) => {
    const postmaster = Number(
      readFileSync(join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0],
    );
    // Whatever happens below, no PostgreSQL outlives the test.
    cleanup.add('stop the orphaned PostgreSQL', () => {
      if (alive(postmaster)) process.kill(postmaster, 'SIGINT');
    });
    return postmaster;
  };

  const createTenant = async (url: string) => {
    const { access_token: token } = await passwordGrant(url, 'admin', 'admin');
    const created = await call(url, '/ctrl/api/v1.0/tenants/create', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      query: { id: 'orphaned', label: 'Outlives a kill -9' },
    });
    expect(created.status).toBe(201);
  };

  const readsTenant = async (url: string) => {
    const { access_token: token } = await passwordGrant(url, 'admin', 'admin');
    const read = await call<{ id: string }>(url, '/ctrl/api/v1.0/tenants/orphaned', {
      headers: { authorization: `Bearer ${token}` },
    });
    expect({ status: read.status, id: read.body.id }).toEqual({ status: 200, id: 'orphaned' });
  };

  it('stops the PostgreSQL of a killed service through its watchdog, which then exits; the next start has the data', async () => {
    const dataDir = cleanup.tempDir('watched-data');
    const first = await startIn(dataDir, 'watched');
    const postmaster = postmasterOf(dataDir);
    const watchdog = watchdogOf(dataDir);
    expect(watchdog).toEqual(expect.any(Number));
    await createTenant(first.url);

    first.signal('SIGKILL');
    await first.exited;
    await eventually(() => !alive(postmaster), 20_000, 'PostgreSQL stopping');
    await eventually(() => !alive(watchdog!), 20_000, 'the watchdog exiting');

    const second = await startIn(dataDir, 'watched-again');
    await readsTenant(second.url);
    expect(second.log(200)).not.toMatch(/left running/);
    const secondWatchdog = watchdogOf(dataDir)!;
    expect(secondWatchdog).not.toBe(watchdog);
    // Stopped in order, the service stops its PostgreSQL itself; its watchdog exits with it.
    await second.stop();
    expect(await second.exited).toEqual({ code: 0, signal: null });
    await eventually(() => !alive(secondWatchdog), 20_000, 'the second watchdog exiting');
  });

  it('starts again on the same DATA_DIR, with the data, when the orphaned PostgreSQL still runs', async () => {
    const dataDir = cleanup.tempDir('killed-data');
    const first = await startIn(dataDir, 'first');
    // While its service lives, the cluster stays its own.
    const intruder = await AppProcess.spawn(
      {
        name: 'intruder',
        cwd: cleanup.tempDir('intruder-cwd'),
        env: { DATA_DIR: dataDir },
      },
      cleanup,
    );
    expect(await intruder.waitForExit(60_000)).toEqual({ code: 1, signal: null });
    expect(intruder.log()).toContain(`already in use by another process (pid ${first.pid})`);
    const postmaster = postmasterOf(dataDir);
    await createTenant(first.url);

    // The watchdog killed first (as a kill of every process would), then the service.
    process.kill(watchdogOf(dataDir)!, 'SIGKILL');
    first.signal('SIGKILL');
    await first.exited;
    expect(alive(postmaster)).toBe(true);

    const second = await startIn(dataDir, 'second');
    expect(alive(postmaster)).toBe(false);
    await readsTenant(second.url);
    expect(second.log(200)).toMatch(/Stopped the embedded PostgreSQL .* left running/);
    await second.stop();
    expect(await second.exited).toEqual({ code: 0, signal: null });
  });
});

describe('local mode on a taken port', () => {
  const cleanup = new Cleanup();
  afterAll(() => cleanup.run(), 60_000);

  it('exits with 1 and one line naming PORT, without a stack, before starting the database', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    cleanup.add(
      'close the port holder',
      () => new Promise<void>((resolve) => holder.close(() => resolve())),
    );
    const port = (holder.address() as AddressInfo).port;
    const refused = await AppProcess.spawn(
      {
        name: 'taken-port',
        port,
        cwd: cleanup.tempDir('taken-port-cwd'),
        env: { DATA_DIR: cleanup.tempDir('taken-port-data') },
      },
      cleanup,
    );
    expect(await refused.waitForExit(120_000)).toEqual({ code: 1, signal: null });
    const fatal = refused.logRecords().filter((record) => record.level === 'fatal');
    expect(fatal).toEqual([
      expect.objectContaining({
        msg: `Configuration error: PORT: port ${port} on 127.0.0.1 is already in use (another process, or this service started twice): stop it or choose another PORT`,
      }),
    ]);
    expect(refused.log(400)).not.toMatch(/EADDRINUSE|\n\s+at /);
    // Said before the slow steps: no database was started for it.
    expect(refused.logRecords().filter((record) => record.event === 'start.step')).toEqual([]);
  });
});
