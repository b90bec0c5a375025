import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { loginForm } from '../support/browser.js';
import { call, passwordGrant, postForm, tokenPath } from '../support/test-service.js';
import { AppProcess, eventually } from './support/app-process.js';
import { Cleanup } from './support/cleanup.js';
import { startGateway, type Gateway } from './support/nginx.js';
import { freePort } from './support/ports.js';

/**
 * Real nginx, rendered from nginx/agent.conf.template, in front of one app process in local mode whose
 * PUBLIC_BASE_URL is the nginx origin: everything below goes through nginx only.
 */
const realm = '/auth/realms/agent-cloud';

interface Tenant {
  id: string;
  label: string;
  did: string;
}

function jwtPayload(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8')) as Record<
    string,
    unknown
  >;
}

/** One request with the path sent byte for byte (fetch would normalise `..` and `%2e`). */
function rawGet(origin: string, path: string): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest({ host: hostname, port, path, method: 'GET' }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

describe('gateway: nginx from the template in front of the app in local mode', () => {
  const cleanup = new Cleanup();
  let gateway: Gateway;
  let app: AppProcess;

  beforeAll(async () => {
    const appPort = await freePort();
    gateway = await startGateway(
      {
        app: [`127.0.0.1:${appPort}`],
        auth: [`127.0.0.1:${appPort}`],
        directory: cleanup.tempDir('gateway-nginx'),
      },
      cleanup,
    );
    app = await AppProcess.start(
      {
        name: 'app',
        port: appPort,
        cwd: cleanup.tempDir('gateway-cwd'),
        // Local mode: no DATABASE_URL, no AGENT_MASTER_KEY, no AUTH_ISSUER_URL; all state in DATA_DIR.
        // nginx on this host forwards the client's address, as TRUST_PROXY says (operations.md).
        env: {
          PUBLIC_BASE_URL: gateway.origin,
          DATA_DIR: cleanup.tempDir('gateway-data'),
          TRUST_PROXY: 'loopback',
        },
      },
      cleanup,
      120_000,
    );
  }, 180_000);

  afterAll(() => cleanup.run(), 60_000);

  /** The app's request log lines (one per answered request): request id and path of each that reached it. */
  function requestsSeenByApp(): { id: string; path: string; status: number }[] {
    return app.logRecords().flatMap((record) => {
      const request = record.req as { id?: unknown; path?: unknown } | undefined;
      const response = record.res as { statusCode?: unknown } | undefined;
      if (request === undefined || typeof request.path !== 'string') return [];
      return [
        { id: String(request.id), path: request.path, status: Number(response?.statusCode ?? 0) },
      ];
    });
  }

  it('walks the README flow through nginx: token via /auth, tenants and DIDs via /ctrl, refresh', async () => {
    const base = gateway.origin;
    const tokens = await passwordGrant(base, 'admin', 'admin');
    expect(tokens.token_type).toBe('Bearer');
    expect(jwtPayload(tokens.access_token).iss).toBe(`${base}${realm}`);
    const authorization = `Bearer ${tokens.access_token}`;

    const acme = await call<Tenant>(base, '/ctrl/api/v1.0/tenants/create', {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/json' },
      query: { id: 'acme', label: 'ACME Corp' },
    });
    expect(acme.status).toBe(201);
    expect(acme.body).toMatchObject({ id: 'acme', label: 'ACME Corp', imageUrl: null });
    expect(acme.body.did).toMatch(/^did:key:z6Mk/);

    const globex = await call<Tenant>(base, '/ctrl/api/v1.0/tenants/create', {
      method: 'POST',
      headers: { authorization },
      body: { id: 'globex', label: 'Globex', imageUrl: 'https://globex.example/logo.png' },
    });
    expect(globex.status).toBe(201);

    const did = await call<{ id: string; public: boolean; verkey: string }>(
      base,
      '/ctrl/api/v1.0/did',
      { headers: { authorization, 'x-tenant-id': 'acme' } },
    );
    expect(did.status).toBe(200);
    expect(did.body).toMatchObject({ id: acme.body.did, public: true, method: 'key' });

    const document = await call<{ id: string }>(base, '/ctrl/api/v1.0/did/document', {
      headers: { authorization, 'x-tenant-id': 'acme' },
    });
    expect(document.status).toBe(200);
    expect(document.headers.get('content-type')).toMatch(/^application\/did\+ld\+json/);
    expect(document.body.id).toBe(acme.body.did);

    const list = await call<{ content: Tenant[]; totalElements: number }>(
      base,
      '/ctrl/api/v1.0/tenants',
      {
        headers: { authorization },
        query: { page: '0', size: '20', sort: 'createdAt,desc', q: 'acme' },
      },
    );
    expect(list.status).toBe(200);
    expect(list.body.content.map((tenant) => tenant.id)).toEqual(['acme']);

    const all = await call<{ content: Tenant[] }>(base, '/ctrl/api/v1.0/tenants', {
      headers: { authorization },
    });
    // demo, the demo user's tenant, was made by local mode on its first start.
    expect(all.body.content.map((tenant) => tenant.id)).toEqual(['globex', 'acme', 'demo']);

    const missing = await call<{ code: string; type: string }>(base, '/ctrl/api/v1.0/did', {
      headers: { authorization, 'x-tenant-id': 'nobody' },
    });
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(missing.body.code).toBe('TENANT_NOT_FOUND');
    expect(missing.body.type).toBe(`${base}/ctrl/problems/tenant-not-found`);

    const refreshed = await postForm(base, tokenPath, {
      client_id: 'agent-client',
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token!,
    });
    expect(refreshed.status).toBe(200);
    const renewed = (refreshed.body as { access_token: string }).access_token;
    expect(jwtPayload(renewed).iss).toBe(`${base}${realm}`);
    const withRenewed = await call(base, '/ctrl/api/v1.0/tenants/acme', {
      headers: { authorization: `Bearer ${renewed}` },
    });
    expect(withRenewed.status).toBe(200);

    // Every one of these went through nginx to the app: nginx logged an upstream for each.
    const proxied = () =>
      gateway
        .accessLog()
        .filter(
          (line) => line.includes(' /ctrl/api/v1.0/') && / upstream=127\.0\.0\.1:/.test(line),
        );
    await eventually(() => (proxied().length >= 8 ? true : undefined), 5_000, 'nginx access log');
    expect(proxied()).toHaveLength(8);
  });

  it('shows the public origin in discovery and the OpenAPI document, whatever the client claims', async () => {
    const spoofed = {
      'x-forwarded-host': 'evil.example',
      'x-forwarded-proto': 'https',
      'x-forwarded-port': '443',
    };
    const discovery = await call<Record<string, string>>(
      gateway.origin,
      `${realm}/.well-known/openid-configuration`,
      { headers: spoofed },
    );
    expect(discovery.status).toBe(200);
    expect(discovery.body).toMatchObject({
      issuer: `${gateway.origin}${realm}`,
      authorization_endpoint: `${gateway.origin}${realm}/protocol/openid-connect/auth`,
      token_endpoint: `${gateway.origin}${realm}/protocol/openid-connect/token`,
      jwks_uri: `${gateway.origin}${realm}/protocol/openid-connect/certs`,
      end_session_endpoint: `${gateway.origin}${realm}/protocol/openid-connect/logout`,
    });
    const certs = await call<{ keys: unknown[] }>(
      gateway.origin,
      `${realm}/protocol/openid-connect/certs`,
    );
    expect(certs.status).toBe(200);
    expect(certs.body.keys).toHaveLength(1);

    const openApi = await call<{ servers: { url: string }[] }>(
      gateway.origin,
      '/ctrl/v3/api-docs',
      {
        headers: spoofed,
      },
    );
    expect(openApi.status).toBe(200);
    expect(openApi.body.servers.map((server) => server.url)).toEqual([gateway.origin]);
  });

  it('names the address nginx saw, never the one a client puts in X-Forwarded-For', async () => {
    const grant = await postForm(
      gateway.origin,
      tokenPath,
      { grant_type: 'client_credentials', client_id: 'agent-service', client_secret: 'change-me' },
      { 'x-forwarded-for': '203.0.113.9' },
    );
    expect(grant.status).toBe(200);
    const claims = jwtPayload((grant.body as { access_token: string }).access_token);
    expect(claims).toMatchObject({ clientAddress: '127.0.0.1', clientHost: '127.0.0.1' });
  });

  it('redirects to the Swagger UI on the public origin and serves it through nginx', async () => {
    const withoutSlash = await call(gateway.origin, '/ctrl/swagger-ui');
    expect([301, 302, 308]).toContain(withoutSlash.status);
    expect(new URL(withoutSlash.headers.get('location')!, `${gateway.origin}/`).href).toBe(
      `${gateway.origin}/ctrl/swagger-ui/`,
    );

    const root = await call(gateway.origin, '/');
    expect([301, 302]).toContain(root.status);
    expect(new URL(root.headers.get('location')!, `${gateway.origin}/`).href).toBe(
      `${gateway.origin}/ctrl/swagger-ui/`,
    );

    const page = await call<string>(gateway.origin, '/ctrl/swagger-ui/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.text).toContain('swagger-ui');

    // The large bundle passes nginx's buffers whole.
    const bundle = await call<string>(gateway.origin, '/ctrl/swagger-ui/swagger-ui-bundle.js');
    expect(bundle.status).toBe(200);
    expect(bundle.text.length).toBeGreaterThan(500_000);
  });

  it('keeps the redirects relative, so that they hold on whatever port nginx is published', async () => {
    // docker-compose publishes nginx's 8080 as NGINX_PUBLISHED_PORT: a TCP forwarder plays that part.
    const sockets = new Set<Socket>();
    const forwarder = createServer((client) => {
      const upstream = connect(gateway.port, '127.0.0.1');
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
        socket.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => forwarder.listen(0, '127.0.0.1', resolve));
    cleanup.add('close the forwarder', async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => forwarder.close(resolve));
    });
    const published = `http://127.0.0.1:${(forwarder.address() as AddressInfo).port}`;
    for (const path of ['/', '/ctrl/swagger-ui']) {
      const answer = await call(published, path);
      expect({ path, status: answer.status }).toEqual({
        path,
        status: path === '/' ? 302 : 301,
      });
      expect({ path, to: new URL(answer.headers.get('location')!, `${published}/`).href }).toEqual({
        path,
        to: `${published}/ctrl/swagger-ui/`,
      });
    }
  });

  it('renders the Swagger UI with the API document in a real browser through nginx', async () => {
    const profile = cleanup.tempDir('chromium');
    const dom = await new Promise<string>((resolve, reject) => {
      const browser = spawn(
        'chromium',
        [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--disable-dev-shm-usage',
          '--no-first-run',
          `--user-data-dir=${profile}`,
          '--virtual-time-budget=15000',
          '--dump-dom',
          `${gateway.origin}/ctrl/swagger-ui/`,
        ],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let output = '';
      browser.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
      const timer = setTimeout(() => browser.kill('SIGKILL'), 60_000);
      browser.on('error', reject);
      browser.on('exit', () => {
        clearTimeout(timer);
        resolve(output);
      });
    });
    // Swagger UI has fetched /ctrl/v3/api-docs and rendered its title and operations.
    expect(dom).toMatch(/class="title"[^>]*>\s*Agent service/);
    expect(dom).toContain('/ctrl/api/v1.0/tenants/create');
  }, 90_000);

  it('signs in on the login page through nginx and returns to the public Swagger redirect URI (code + PKCE)', async () => {
    const redirectUri = `${gateway.origin}/ctrl/swagger-ui/oauth2-redirect.html`;
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const state = randomBytes(8).toString('hex');
    const login = await call<string>(gateway.origin, `${realm}/protocol/openid-connect/auth`, {
      query: {
        client_id: 'agent-client',
        redirect_uri: redirectUri,
        response_type: 'code',
        scope: 'openid',
        state,
        code_challenge: challenge,
        code_challenge_method: 'S256',
      },
    });
    expect(login.status).toBe(200);
    expect(login.headers.get('content-type')).toMatch(/^text\/html/);
    const action = new URL(loginForm(login.text).action);
    expect(`${action.origin}${action.pathname}`).toBe(
      `${gateway.origin}${realm}/login-actions/authenticate`,
    );
    // The form is bound to this authorization request by the cookie and the action's parameters.
    const cookie = login.headers
      .getSetCookie()
      .find((line) => line.startsWith('AUTH_SESSION_ID='))
      ?.split(';', 1)[0];
    expect(cookie).toBeDefined();

    // The browser posts where the form says: the public origin, i.e. through nginx.
    const posted = await postForm(
      action.origin,
      `${action.pathname}${action.search}`,
      { username: 'admin', password: 'admin' },
      { cookie: cookie! },
    );
    expect(posted.status).toBe(302);
    const location = new URL(posted.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).toBe(redirectUri);
    expect(location.searchParams.get('state')).toBe(state);
    expect(location.searchParams.get('iss')).toBe(`${gateway.origin}${realm}`);
    const code = location.searchParams.get('code');
    expect(code).toBeTruthy();

    // The Swagger UI's redirect page is there, and the code turns into tokens through nginx.
    const redirectPage = await call<string>(gateway.origin, location.pathname);
    expect(redirectPage.status).toBe(200);
    expect(redirectPage.headers.get('content-type')).toMatch(/^text\/html/);
    const exchanged = await postForm(gateway.origin, tokenPath, {
      client_id: 'agent-client',
      grant_type: 'authorization_code',
      code: code!,
      redirect_uri: redirectUri,
      code_verifier: verifier,
    });
    expect(exchanged.status).toBe(200);
    const accessToken = (exchanged.body as { access_token: string }).access_token;
    expect(jwtPayload(accessToken).iss).toBe(`${gateway.origin}${realm}`);
    const tenants = await call(gateway.origin, '/ctrl/api/v1.0/tenants', {
      headers: { authorization: `Bearer ${accessToken}` },
    });
    expect(tenants.status).toBe(200);
  });

  it('passes a client’s X-Request-Id through and makes one when there is none', async () => {
    const given = `system-${randomBytes(6).toString('hex')}`;
    const echoed = await call(gateway.origin, '/ctrl/api/v1.0/tenants', {
      headers: { 'x-request-id': given },
    });
    expect(echoed.status).toBe(401);
    expect(echoed.headers.get('x-request-id')).toBe(given);

    const fresh = await call(gateway.origin, '/ctrl/api/v1.0/tenants');
    const made = fresh.headers.get('x-request-id');
    // nginx's $request_id (32 hex digits), not one the app made up (a UUID): nginx sent it along.
    expect(made).toMatch(/^[0-9a-f]{32}$/);

    // The app logged both under those ids (its log lines may trail the responses a little).
    for (const id of [given, made]) {
      await eventually(
        () =>
          requestsSeenByApp().find(
            (seen) =>
              seen.id === id && seen.path === '/ctrl/api/v1.0/tenants' && seen.status === 401,
          ),
        5_000,
        `the app's log line of request ${id}`,
      );
    }
  });

  it('does not expose /auth/admin/ (the app never sees those requests)', async () => {
    const paths = [
      '/auth/admin/',
      '/auth/admin/master/console/',
      '/auth/admin/realms/agent-cloud/users',
      '/auth//admin/realms/agent-cloud/users',
      '/auth/%61dmin/realms/agent-cloud/users',
      '/auth/realms/agent-cloud/../../admin/realms/agent-cloud/users',
      '/auth/realms/agent-cloud/%2e%2e/%2e%2e/admin/realms/agent-cloud/users',
    ];
    for (const path of paths) {
      const answer = await rawGet(gateway.origin, path);
      expect({ path, status: answer.status }).toEqual({ path, status: 404 });
    }
    expect(requestsSeenByApp().filter((seen) => seen.path.includes('admin'))).toEqual([]);
  });

  it('routes the OpenID4VCI discovery paths to the app, and no other /.well-known path', async () => {
    const admin = (await passwordGrant(gateway.origin, 'admin', 'admin')).access_token;
    const created = await call(gateway.origin, '/ctrl/api/v1.0/tenants/create', {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
      query: { id: 'wallet-issuer', label: 'Wallet issuer' },
    });
    expect(created.status).toBe(201);
    const issuer = `${gateway.origin}/ctrl/oid4vci/wallet-issuer`;
    const metadata = await call<Record<string, unknown>>(
      gateway.origin,
      '/.well-known/openid-credential-issuer/ctrl/oid4vci/wallet-issuer',
    );
    expect({ status: metadata.status, issuer: metadata.body.credential_issuer }).toEqual({
      status: 200,
      issuer,
    });
    const server = await call<Record<string, unknown>>(
      gateway.origin,
      '/.well-known/oauth-authorization-server/ctrl/oid4vci/wallet-issuer',
    );
    expect({ status: server.status, issuer: server.body.issuer }).toEqual({ status: 200, issuer });
    const keys = await call<Record<string, unknown>>(
      gateway.origin,
      '/.well-known/jwt-vc-issuer/ctrl/oid4vci/wallet-issuer',
    );
    expect({ status: keys.status, issuer: keys.body.issuer }).toEqual({ status: 200, issuer });
    // The wallet endpoints under /ctrl reach the app: a GET of the token endpoint is its own 405.
    const path = '/ctrl/oid4vci/wallet-issuer/token';
    expect((await call(gateway.origin, path)).status).toBe(405);
    // The app's log lines may trail the responses a little.
    await eventually(
      () => requestsSeenByApp().find((seen) => seen.path === path && seen.status === 405),
      5_000,
      `the app's log line of ${path}`,
    );
    const other = await call(gateway.origin, '/.well-known/openid-configuration');
    expect(other.status).toBe(404);
    expect(requestsSeenByApp().map((seen) => seen.path)).not.toContain(
      '/.well-known/openid-configuration',
    );
  });
});
