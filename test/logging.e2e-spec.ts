import { createPublicKey, createPrivateKey } from 'node:crypto';
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { base58 } from '@scure/base';
import { KeyVault } from '../src/secrets/key-vault.js';
import { TenantKeys } from '../src/did/tenant-keys.service.js';
import { queryDatabase } from './support/database.js';
import { makeCertificate } from './support/x509-test-pki.js';
import {
  passwordGrant,
  postForm,
  startTestService,
  tokenPath,
  type TestService,
} from './support/test-service.js';
import { didKeyPurpose, signingKeyPurpose } from '../src/did/did.sealed-columns.js';

interface LogLine {
  level: string;
  msg: string;
  reqId?: string;
  req?: { id: string; method: string; path: string };
  res?: { statusCode: number };
  responseTime?: number;
  tenant?: string;
  user?: string;
  audit?: string;
  tenantId?: string;
  actor?: string;
  aborted?: boolean;
}

/** Every form a secret could take in a log line. */
function encodings(secret: Buffer): string[] {
  return [
    secret.toString('hex'),
    secret.toString('base64'),
    secret.toString('base64url'),
    base58.encode(secret),
  ];
}

/** Sends bytes fetch would never send, returns what came back once the server closed the connection. */
async function rawExchange(url: string, request: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname === 'localhost' ? '127.0.0.1' : hostname);
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    socket.on('end', () => resolve(received));
    socket.on('error', reject);
    socket.write(request);
  });
}

describe('logging', () => {
  const lines: string[] = [];
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService({ logDestination: { write: (line) => lines.push(line) } });
  });
  afterAll(async () => {
    await service.close();
  });

  const parsed = () => lines.map((line) => JSON.parse(line) as LogLine);

  it('writes one JSON line per request with id, method, path, status, duration, tenant and user', async () => {
    await service.request('/ctrl/api/v1.0/tenants/create', {
      method: 'POST',
      query: { id: 'logged', label: 'Logged' },
    });
    const response = await service.request('/ctrl/api/v1.0/did', {
      headers: { 'x-tenant-id': 'logged', 'x-request-id': 'trace-42' },
    });
    expect(response.headers.get('x-request-id')).toBe('trace-42');
    const line = parsed().find((entry) => entry.req?.id === 'trace-42');
    expect(line).toMatchObject({
      level: 'info',
      reqId: 'trace-42',
      req: { method: 'GET', path: '/ctrl/api/v1.0/did' },
      res: { statusCode: 200 },
      tenant: 'logged',
      user: 'admin',
    });
    expect(typeof line?.responseTime).toBe('number');
  });

  it('makes a request id when the caller sends none, or an unusable one, and echoes it', async () => {
    const made = await service.request('/ctrl/api/v1.0/tenants');
    expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const odd = await service.request('/ctrl/api/v1.0/tenants', {
      headers: { 'x-request-id': 'has spaces and {braces}' },
    });
    expect(odd.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('writes an audit line naming who created, updated and deleted a tenant, in which request', async () => {
    await service.request('/ctrl/api/v1.0/tenants/create', {
      method: 'POST',
      query: { id: 'audited', label: 'A' },
      headers: { 'x-request-id': 'audit-create' },
    });
    await service.request('/ctrl/api/v1.0/tenants/audited/update', {
      method: 'POST',
      query: { label: 'B' },
      headers: { 'x-request-id': 'audit-update' },
    });
    const deleted = await service.request('/ctrl/api/v1.0/tenants/audited/delete', {
      method: 'POST',
    });
    const audits = parsed().filter(
      (entry) => entry.tenantId === 'audited' && entry.audit !== undefined,
    );
    expect(audits.map((entry) => [entry.audit, entry.actor, entry.reqId])).toEqual([
      ['tenant.create', 'admin', 'audit-create'],
      ['tenant.update', 'admin', 'audit-update'],
      ['tenant.delete', 'admin', deleted.headers.get('x-request-id')],
    ]);
  });

  it('writes an audit line for every change to a webhook or a trusted issuer, naming who and where events go', async () => {
    await service.client().createTenant({ id: 'hooked', label: 'Hooked' });
    const as = (requestId: string) => ({ 'x-tenant-id': 'hooked', 'x-request-id': requestId });
    const created = await service.request<{ id: string }>('/ctrl/api/v1.0/webhooks/create', {
      method: 'POST',
      headers: as('hook-create'),
      body: { url: 'https://1.1.1.1/hooks/path-secret-1' },
    });
    const hook = created.body.id;
    await service.request(`/ctrl/api/v1.0/webhooks/${hook}/update`, {
      method: 'POST',
      headers: as('hook-update'),
      body: { url: 'https://8.8.8.8/hooks/path-secret-2', enabled: false },
    });
    await service.request(`/ctrl/api/v1.0/webhooks/${hook}/rotate-secret`, {
      method: 'POST',
      headers: as('hook-rotate'),
    });
    await service.request(`/ctrl/api/v1.0/webhooks/${hook}/delete`, {
      method: 'POST',
      headers: as('hook-delete'),
    });
    const trusted = await service.request<{ id: string }>('/ctrl/api/v1.0/trusted-issuers/create', {
      method: 'POST',
      headers: as('trust-create'),
      body: { issuer: 'did:web:university.example' },
    });
    await service.request(`/ctrl/api/v1.0/trusted-issuers/${trusted.body.id}/delete`, {
      method: 'POST',
      headers: as('trust-delete'),
    });

    const audits = (parsed() as (LogLine & Record<string, unknown>)[]).filter(
      (entry) => entry.tenantId === 'hooked' && entry.audit !== undefined,
    );
    expect(
      audits.map((entry) => [entry.audit, entry.actor, entry.reqId, entry.urlOrigin ?? null]),
    ).toEqual([
      ['tenant.create', 'admin', expect.any(String), null],
      ['webhook.create', 'admin', 'hook-create', 'https://1.1.1.1'],
      ['webhook.update', 'admin', 'hook-update', 'https://8.8.8.8'],
      ['webhook.rotate-secret', 'admin', 'hook-rotate', null],
      ['webhook.delete', 'admin', 'hook-delete', null],
      ['trusted-issuer.create', 'admin', 'trust-create', null],
      ['trusted-issuer.delete', 'admin', 'trust-delete', null],
    ]);
    expect(audits.find((entry) => entry.audit === 'webhook.update')?.fields).toEqual([
      'url',
      'enabled',
    ]);
    // A URL's path may hold the receiver's secret: never logged.
    expect(lines.join('\n')).not.toMatch(/path-secret/);
  });

  it('writes an audit line for every change to an OpenID4VCI credential configuration, naming who', async () => {
    await service.client().createTenant({ id: 'badges', label: 'Badges' });
    const base = '/ctrl/api/v1.0/oid4vci/credential-configurations';
    const as = (requestId: string) => ({ 'x-tenant-id': 'badges', 'x-request-id': requestId });
    const definition = { format: 'dc+sd-jwt', vct: 'https://badges.example/badge' };
    for (const [path, requestId, body] of [
      [`${base}/create`, 'config-create', { id: 'Badge', ...definition }],
      [`${base}/Badge/update`, 'config-update', { ...definition, revocable: false }],
      [`${base}/Badge/delete`, 'config-delete', undefined],
    ] as const) {
      const answer = await service.request(path, { method: 'POST', headers: as(requestId), body });
      expect(answer.status).toBeLessThan(300);
    }

    const audits = (parsed() as (LogLine & Record<string, unknown>)[]).filter(
      (entry) => entry.tenantId === 'badges' && entry.audit !== undefined,
    );
    expect(
      audits.map((entry) => [entry.audit, entry.actor, entry.reqId, entry.configurationId ?? null]),
    ).toEqual([
      ['tenant.create', 'admin', expect.any(String), null],
      ['oid4vci.credential-configuration.create', 'admin', 'config-create', 'Badge'],
      ['oid4vci.credential-configuration.update', 'admin', 'config-update', 'Badge'],
      ['oid4vci.credential-configuration.delete', 'admin', 'config-delete', 'Badge'],
    ]);
  });

  it('writes an audit line for every change to a trust anchor, naming the certificate', async () => {
    await service.client().createTenant({ id: 'anchored', label: 'Anchored' });
    const base = '/ctrl/api/v1.0/trust-anchors';
    const as = (requestId: string) => ({ 'x-tenant-id': 'anchored', 'x-request-id': requestId });
    const root = await makeCertificate('Audited root', { ca: true });
    const created = await service.request<{ id: string }>(`${base}/create`, {
      method: 'POST',
      headers: as('anchor-create'),
      body: { certificate: root.pem },
    });
    await service.request(`${base}/${created.body.id}/delete`, {
      method: 'POST',
      headers: as('anchor-delete'),
    });

    const audits = (parsed() as (LogLine & Record<string, unknown>)[]).filter(
      (entry) => entry.tenantId === 'anchored' && entry.audit !== undefined,
    );
    expect(
      audits.map((entry) => [entry.audit, entry.reqId, entry.trustAnchorId, entry.subject ?? null]),
    ).toEqual([
      ['tenant.create', expect.any(String), undefined, null],
      ['trust-anchor.create', 'anchor-create', created.body.id, root.subject],
      ['trust-anchor.delete', 'anchor-delete', created.body.id, null],
    ]);
    expect(audits[1].fingerprint).toMatch(/^[0-9a-f]{64}$/);
  });

  it('names the request in which a login started a session', async () => {
    const response = await postForm(
      service.url,
      tokenPath,
      { client_id: 'agent-client', grant_type: 'password', username: 'demo', password: 'demo' },
      { 'x-request-id': 'login-1' },
    );
    expect(response.status).toBe(200);
    expect(parsed()).toContainEqual(
      expect.objectContaining({ msg: 'Session started for demo (agent-client)', reqId: 'login-1' }),
    );
  });

  it('logs failures at warn level with their status', async () => {
    await service.request('/ctrl/api/v1.0/did', {
      headers: { 'x-tenant-id': 'nobody' },
      query: {},
    });
    expect(parsed().some((entry) => entry.level === 'warn' && entry.res?.statusCode === 404)).toBe(
      true,
    );
  });

  it('logs the whole path of a request refused while its body was read, without the query', async () => {
    const response = await service.request('/ctrl/api/v1.0/tenants/create?label=Broken', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'broken-body' },
      body: '{"id": ',
    });
    expect(response.status).toBe(400);
    const line = parsed().find((entry) => entry.reqId === 'broken-body');
    expect(line).toMatchObject({
      level: 'warn',
      req: { method: 'POST', path: '/ctrl/api/v1.0/tenants/create' },
      res: { statusCode: 400 },
      msg: 'POST /ctrl/api/v1.0/tenants/create 400',
    });
  });

  it('logs only the path of an absolute-form request target, never its credentials or host', async () => {
    const { host } = new URL(service.url);
    const answer = await rawExchange(
      service.url,
      `GET http://someone:hunter2@${host}/ctrl/api/v1.0/did?x=1 HTTP/1.1\r\n` +
        `Host: ${host}\r\nX-Request-Id: absolute-form\r\nConnection: close\r\n\r\n`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 401 /);
    const problem = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as object;
    expect(problem).toMatchObject({ instance: '/ctrl/api/v1.0/did' });
    expect(answer).not.toContain('hunter2');
    const line = parsed().find((entry) => entry.reqId === 'absolute-form');
    expect(line).toMatchObject({
      req: { method: 'GET', path: '/ctrl/api/v1.0/did' },
      res: { statusCode: 401 },
    });
    expect(lines.join('\n')).not.toContain('hunter2');
  });

  it('logs a request the client abandoned as aborted, at warn level, without a status', async () => {
    const { host, hostname, port } = new URL(service.url);
    // An authenticated caller: the service reads a body only once the token is accepted.
    const token = await service.tokenFor('admin');
    const socket = connect(Number(port), hostname === 'localhost' ? '127.0.0.1' : hostname);
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(
      `POST /ctrl/api/v1.0/tenants/create?label=Gone HTTP/1.1\r\nHost: ${host}\r\n` +
        `Authorization: Bearer ${token}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 100\r\nX-Request-Id: walked-away\r\n\r\n{"id":',
    );
    await sleep(100);
    socket.destroy();
    let line: LogLine | undefined;
    for (let waited = 0; line === undefined && waited < 5000; waited += 50) {
      await sleep(50);
      line = parsed().find((entry) => entry.reqId === 'walked-away');
    }
    expect(line).toMatchObject({
      level: 'warn',
      aborted: true,
      req: { method: 'POST', path: '/ctrl/api/v1.0/tenants/create' },
      msg: 'POST /ctrl/api/v1.0/tenants/create aborted',
    });
    expect(line?.res).toBeUndefined();
  });

  it('never writes a token, a password, a client secret or a private key', async () => {
    const tokens = await passwordGrant(service.url, 'admin', 'admin', { scope: 'openid' });
    await postForm(service.url, tokenPath, {
      client_id: 'agent-client',
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token ?? '',
    });
    await postForm(service.url, tokenPath, {
      client_id: 'agent-service',
      client_secret: 'change-me',
      grant_type: 'client_credentials',
    });
    // A failed login with a distinctive password, and a bearer token that is refused.
    await postForm(service.url, tokenPath, {
      client_id: 'agent-client',
      grant_type: 'password',
      username: 'admin',
      password: 'Wrong-Pass-7f3a9c',
    });
    await service.request('/ctrl/api/v1.0/tenants', { token: `${tokens.access_token}x` });
    await service.request('/ctrl/api/v1.0/tenants/create', {
      method: 'POST',
      query: { id: 'secretive', label: 'S' },
    });
    await service.request('/ctrl/api/v1.0/did', { headers: { 'x-tenant-id': 'secretive' } });

    const [row] = await queryDatabase<{ private_key_sealed: Buffer }>(
      service.databaseUrl,
      `SELECT private_key_sealed FROM tenant_did WHERE tenant_id = 'secretive'`,
    );
    const seed = new KeyVault(Buffer.from(service.masterKey, 'base64')).open(
      'secretive',
      row.private_key_sealed,
      didKeyPurpose,
    );
    const signingKey = createPrivateKey({
      key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]),
      format: 'der',
      type: 'pkcs8',
    });
    expect(createPublicKey(signingKey).asymmetricKeyType).toBe('ed25519');
    // The tenant's ES256 key, made with it, and used once.
    const [es256Row] = await queryDatabase<{ private_key_sealed: Buffer }>(
      service.databaseUrl,
      `SELECT private_key_sealed FROM tenant_signing_key WHERE tenant_id = 'secretive'`,
    );
    const es256Scalar = new KeyVault(Buffer.from(service.masterKey, 'base64')).open(
      'secretive',
      es256Row.private_key_sealed,
      signingKeyPurpose,
    );
    await (await service.app.get(TenantKeys).es256SigningKey('secretive')).sign(Buffer.from('x'));

    const secrets = [
      tokens.access_token,
      tokens.refresh_token ?? '',
      tokens.id_token ?? '',
      // A JWT's signature alone identifies it.
      tokens.access_token.split('.')[2],
      'Wrong-Pass-7f3a9c',
      'change-me',
      service.masterKey,
      ...encodings(seed),
      ...encodings(row.private_key_sealed),
      ...encodings(es256Scalar),
      ...encodings(es256Row.private_key_sealed),
    ];
    const log = lines.join('');
    expect(lines.length).toBeGreaterThan(10);
    for (const secret of secrets) expect(log).not.toContain(secret);
  });
});
