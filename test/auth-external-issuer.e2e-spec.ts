import { expectProblem } from './support/problems.js';
import { createHmac, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  passwordGrant,
  postForm,
  startTestService,
  tokenPath,
  type TestService,
} from './support/test-service.js';
import {
  tenantsPath,
  createPath,
  tenantPath,
  updatePath,
  deletePath,
  didPath,
} from './support/api-shapes.js';
import {
  realmPath,
  certsPath,
  discoveryPath,
  documentPath,
  type Claims,
  type RsaJwk,
  type SigningKey,
  newSigningKey,
  compactJwt,
  rs256,
  decodeSegment,
  nowSeconds,
  expectUnauthorized,
  tenantIds,
  tenantLabels,
  createTenantAsAdmin,
} from './support/auth-harness.js';

/** Callers the realm gives no role, and tokens of an issuer other than the embedded one (Keycloak's shape, keys served from elsewhere). */
describe('a user with neither agent-admin nor agent-user', () => {
  let service: TestService;

  beforeAll(async () => {
    const realm = JSON.parse(
      readFileSync(new URL('../keycloak/agent-cloud-realm.json', import.meta.url), 'utf8'),
    ) as { users: Record<string, unknown>[] };
    realm.users.push({
      username: 'norole',
      enabled: true,
      email: 'norole@agent-cloud.local',
      emailVerified: true,
      firstName: 'No',
      lastName: 'Role',
      credentials: [{ type: 'password', value: 'norole', temporary: false }],
      realmRoles: ['default-roles-agent-cloud'],
    });
    const realmFile = join(mkdtempSync(join(tmpdir(), 'agent-realm-')), 'realm.json');
    writeFileSync(realmFile, JSON.stringify(realm));
    service = await startTestService({ env: { AUTH_REALM_FILE: realmFile } });
    await createTenantAsAdmin(service, 'demo', 'Demo');
  });

  afterAll(async () => {
    await service.close();
  });

  it('gets 403 on every route that is not public, before any tenant check, and changes nothing', async () => {
    const { access_token: token } = await passwordGrant(service.url, 'norole', 'norole');
    expect(decodeSegment(token, 1).realm_access).toEqual({
      roles: expect.not.arrayContaining(['agent-admin', 'agent-user']) as unknown,
    });
    const before = await tenantLabels(service);
    const attempts: [string, string, Record<string, string>, Record<string, string>][] = [
      ['GET', tenantsPath, {}, {}],
      ['GET', tenantPath('demo'), {}, {}],
      ['GET', didPath, { 'x-tenant-id': 'demo' }, {}],
      ['GET', documentPath, { 'x-tenant-id': 'demo' }, {}],
      ['GET', didPath, {}, {}],
      ['POST', createPath, {}, { id: 'nobody', label: 'Nobody' }],
      ['POST', updatePath('demo'), {}, { label: 'Renamed' }],
      ['POST', deletePath('demo'), {}, {}],
    ];
    for (const [method, path, headers, query] of attempts) {
      const response = await service.request(path, { method, token, headers, query });
      expectProblem(response, 403, 'FORBIDDEN', path);
    }
    expect(await tenantLabels(service)).toEqual(before);
    expect((await service.request('/ctrl/health/live', { token })).status).toBe(200);
  });
});

describe('with an external issuer', () => {
  const externalIssuer = 'https://issuer.test/auth/realms/agent-cloud';
  const firstKey = newSigningKey('first-key');
  const rotatedKey = newSigningKey('rotated-key');

  /** The issuer's key endpoint, under the test's control: what it publishes, whether it answers. */
  class JwksServer {
    fetches = 0;
    published: RsaJwk[] = [];
    failWithStatus: number | undefined;
    private server: Server | undefined;
    private port = 0;

    get url(): string {
      return `http://127.0.0.1:${this.port}/certs`;
    }

    async start(): Promise<void> {
      const server = createServer((request, response) => {
        if (request.url !== '/certs') {
          response.writeHead(404).end();
          return;
        }
        this.fetches += 1;
        if (this.failWithStatus !== undefined) {
          response.writeHead(this.failWithStatus, { 'content-type': 'text/plain' }).end('down');
          return;
        }
        response
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ keys: this.published }));
      });
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(this.port, '127.0.0.1', () => resolve());
      });
      this.port = (server.address() as AddressInfo).port;
      this.server = server;
    }

    async stop(): Promise<void> {
      const server = this.server;
      if (server === undefined) return;
      this.server = undefined;
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }

  let jwks: JwksServer;
  let service: TestService | undefined;

  async function startWithExternalIssuer(): Promise<TestService> {
    jwks = new JwksServer();
    jwks.published = [firstKey.jwk];
    await jwks.start();
    service = await startTestService({
      env: { AUTH_ISSUER_URL: externalIssuer, AUTH_JWKS_URL: jwks.url },
    });
    return service;
  }

  afterEach(async () => {
    await service?.close();
    service = undefined;
    await jwks.stop();
  });

  function externalToken(key: SigningKey, kid = key.kid, changes: Claims = {}): string {
    const now = nowSeconds();
    return rs256(key.privateKey, kid, {
      exp: now + 600,
      iat: now,
      jti: `onrtro:${randomUUID()}`,
      iss: externalIssuer,
      aud: ['agent-api'],
      sub: randomUUID(),
      typ: 'Bearer',
      azp: 'agent-client',
      realm_access: { roles: ['agent-admin'] },
      scope: 'email profile',
      preferred_username: 'external-admin',
      ...changes,
    });
  }

  it('fetches the signing keys once and then answers from its cache', async () => {
    const running = await startWithExternalIssuer();
    expect(jwks.fetches).toBe(0);
    const created = await running.request(createPath, {
      method: 'POST',
      token: externalToken(firstKey),
      query: { id: 'external', label: 'External' },
    });
    expect(created.status).toBe(201);
    expect(jwks.fetches).toBe(1);
    for (let call = 0; call < 5; call += 1) {
      const response = await running.request(tenantsPath, { token: externalToken(firstKey) });
      expect(response.status).toBe(200);
    }
    expect(jwks.fetches).toBe(1);
  });

  it('refuses a token that names another algorithm than RS256, or carries no claims, without fetching the keys for it', async () => {
    const running = await startWithExternalIssuer();
    const claims = decodeSegment(externalToken(firstKey), 1);
    const forged = [
      compactJwt({ alg: 'HS256', typ: 'JWT', kid: 'unknown-kid' }, claims, (input) =>
        createHmac('sha256', 'guess').update(input).digest(),
      ),
      compactJwt({ alg: 'ES256', typ: 'JWT', kid: 'unknown-kid' }, claims, () =>
        Buffer.alloc(64, 1),
      ),
      compactJwt({ alg: 'none', typ: 'JWT', kid: firstKey.kid }, claims, () => Buffer.alloc(0)),
    ];
    // RS256 and a kid the service has never seen, but a payload that is no JSON object.
    const header = Buffer.from(
      JSON.stringify({ alg: 'RS256', typ: 'JWT', kid: 'unknown-kid' }),
    ).toString('base64url');
    for (const payload of ['not json', '"a string"', '[1,2]'])
      forged.push(
        `${header}.${Buffer.from(payload).toString('base64url')}.${Buffer.alloc(256, 7).toString('base64url')}`,
      );
    for (const token of forged) {
      expectUnauthorized(
        await running.request(tenantsPath, { token }),
        tenantsPath,
        'invalid_token',
      );
    }
    expect(jwks.fetches).toBe(0);
  });

  it('keeps accepting tokens of a cached key while the key endpoint is down', async () => {
    const running = await startWithExternalIssuer();
    expect((await running.request(tenantsPath, { token: externalToken(firstKey) })).status).toBe(
      200,
    );
    await jwks.stop();
    expect((await running.request(tenantsPath, { token: externalToken(firstKey) })).status).toBe(
      200,
    );
  });

  it('refetches exactly once when a token names a key the issuer has just published', async () => {
    const running = await startWithExternalIssuer();
    expect((await running.request(tenantsPath, { token: externalToken(firstKey) })).status).toBe(
      200,
    );
    expect(jwks.fetches).toBe(1);

    jwks.published = [firstKey.jwk, rotatedKey.jwk];
    const rotated = await running.request(tenantsPath, { token: externalToken(rotatedKey) });
    expect(rotated.status).toBe(200);
    expect(jwks.fetches).toBe(2);
    for (const key of [rotatedKey, firstKey, rotatedKey]) {
      expect((await running.request(tenantsPath, { token: externalToken(key) })).status).toBe(200);
    }
    expect(jwks.fetches).toBe(2);
  });

  it('refuses tokens of the right key with the wrong issuer or audience', async () => {
    const running = await startWithExternalIssuer();
    for (const changes of [
      { iss: `${running.publicBaseUrl}${realmPath}` },
      { iss: `${externalIssuer}/` },
      { aud: ['account'] },
    ]) {
      const response = await running.request(tenantsPath, {
        token: externalToken(firstKey, firstKey.kid, changes),
      });
      expectUnauthorized(response, tenantsPath, 'invalid_token');
    }
  });

  it('fetches at most 10 times a minute under a flood of unknown key ids, refusing them all, and keeps serving known keys', async () => {
    const running = await startWithExternalIssuer();
    expect((await running.request(tenantsPath, { token: externalToken(firstKey) })).status).toBe(
      200,
    );
    const before = await tenantIds(running);
    const flood = await Promise.all(
      Array.from({ length: 40 }, (_unused, index) =>
        running.request(createPath, {
          method: 'POST',
          token: externalToken(firstKey, `unknown-${index}-${randomUUID()}`),
          query: { id: `flood-${index}`, label: 'Flood' },
        }),
      ),
    );
    for (const response of flood) expectUnauthorized(response, createPath, 'invalid_token');
    expect(jwks.fetches).toBeGreaterThan(1);
    expect(jwks.fetches).toBeLessThanOrEqual(10);
    expect(await tenantIds(running)).toEqual(before);

    const fetchesAfterFlood = jwks.fetches;
    expect((await running.request(tenantsPath, { token: externalToken(firstKey) })).status).toBe(
      200,
    );
    expect(jwks.fetches).toBe(fetchesAfterFlood);
  });

  it('answers 503 with Retry-After while the key endpoint is unreachable, and recovers when it returns', async () => {
    const running = await startWithExternalIssuer();
    await jwks.stop();
    const before = await tenantIds(running);
    const refused = await running.request(createPath, {
      method: 'POST',
      token: externalToken(firstKey),
      query: { id: 'during-outage', label: 'During outage' },
    });
    expectProblem(refused, 503, 'SERVICE_UNAVAILABLE', createPath);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await tenantIds(running)).toEqual(before);

    await jwks.start();
    const created = await running.request(createPath, {
      method: 'POST',
      token: externalToken(firstKey),
      query: { id: 'after-outage', label: 'After outage' },
    });
    expect(created.status).toBe(201);
  });

  it('keeps answering 503, not 401, to every valid token for as long as the key endpoint is unreachable', async () => {
    const running = await startWithExternalIssuer();
    await jwks.stop();
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 12; attempt += 1) {
      statuses.push(
        (await running.request(tenantsPath, { token: externalToken(firstKey) })).status,
      );
    }
    expect(statuses).toEqual(Array.from({ length: 12 }, () => 503));
  });

  it('answers 503, not 401, when the key endpoint fails with a server error', async () => {
    const running = await startWithExternalIssuer();
    jwks.failWithStatus = 502;
    const response = await running.request(tenantsPath, { token: externalToken(firstKey) });
    expectProblem(response, 503, 'SERVICE_UNAVAILABLE', tenantsPath);
    expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
  });

  it('does not serve the embedded issuer', async () => {
    const running = await startWithExternalIssuer();
    for (const path of [discoveryPath, certsPath]) {
      expectProblem(await running.request(path, { as: 'anonymous' }), 404, 'ROUTE_NOT_FOUND', path);
    }
    const grant = await postForm(running.url, tokenPath, {
      client_id: 'agent-client',
      grant_type: 'password',
      username: 'admin',
      password: 'admin',
    });
    expectProblem(grant, 404, 'ROUTE_NOT_FOUND', tokenPath);
    expect(jwks.fetches).toBe(0);
  });
});
