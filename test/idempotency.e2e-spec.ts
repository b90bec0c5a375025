import { request as httpRequest } from 'node:http';
import pg from 'pg';
import { createPath, type Tenant } from './support/api-shapes.js';
import { alumniCredential, issuePath, type Json } from './support/credentials-harness.js';
import { startCommitStallProxy, type CommitStallProxy } from './support/commit-stall-proxy.js';
import { createTestDatabase } from './support/database.js';
import {
  startTestService,
  type ApiRequest,
  type ApiResponse,
  type TestService,
} from './support/test-service.js';
import { IdempotencyPurge } from '../src/idempotency/idempotency-purge.js';

const webhooksPath = '/ctrl/api/v1.0/webhooks';
const publicTarget = 'https://93.184.215.14/agent-events';

/**
 * `Idempotency-Key` on creates and issues (docs/api.md, Retrying safely), over real HTTP and PostgreSQL:
 * a retry replays the first answer and does nothing twice, also when the first answer was lost after its
 * COMMIT; another request with the key is refused; keys count per caller, tenant and operation, and for
 * 24 hours.
 */
describe('Idempotency keys', () => {
  let proxy: CommitStallProxy;
  let service: TestService;
  let database: pg.Client;

  beforeAll(async () => {
    const databaseUrl = await createTestDatabase();
    // The service reaches its database through a proxy that can lose a COMMIT's answer.
    proxy = await startCommitStallProxy(databaseUrl);
    service = await startTestService({ env: { DATABASE_URL: proxy.url } });
    database = new pg.Client({ connectionString: databaseUrl });
    await database.connect();
    for (const id of ['demo', 'other']) await service.client().createTenant({ id, label: id });
  });

  afterAll(async () => {
    await database.end();
    await service.close();
    await proxy.close();
  });

  const withKey = (key: string, request: ApiRequest = {}): ApiRequest => ({
    method: 'POST',
    ...request,
    headers: { ...request.headers, 'Idempotency-Key': key },
  });
  const createTenant = (key: string, query: Record<string, string>) =>
    service.request<Tenant>(createPath, withKey(key, { query }));
  const count = async (sql: string, values: unknown[] = []) =>
    (await database.query<{ count: number }>(sql, values)).rows[0].count;
  const tenantsNamed = (id: string) =>
    count('SELECT count(*)::int AS count FROM tenant WHERE id = $1', [id]);
  const replayed = (response: ApiResponse) => response.headers.get('idempotent-replayed');
  const codeOf = (response: ApiResponse) => (response.body as { code?: string }).code;

  it('replays the first answer to the same request with the same key, and creates one tenant', async () => {
    const first = await createTenant('create-once', { id: 'once', label: 'Once' });
    expect(first.status).toBe(201);
    expect(replayed(first)).toBeNull();
    const again = await createTenant('create-once', { id: 'once', label: 'Once' });
    expect({ status: again.status, replayed: replayed(again) }).toEqual({
      status: 201,
      replayed: 'true',
    });
    expect(again.text).toBe(first.text);
    expect(await tenantsNamed('once')).toBe(1);
    // The quoted form of the IETF draft names the same key.
    const quoted = await createTenant('"create-once"', { id: 'once', label: 'Once' });
    expect({ status: quoted.status, text: quoted.text }).toEqual({ status: 201, text: first.text });
  });

  it('refuses the key with another request (422) and changes nothing', async () => {
    expect((await createTenant('one-intent', { id: 'intent', label: 'Intent' })).status).toBe(201);
    const other = await createTenant('one-intent', { id: 'intent-2', label: 'Another' });
    expect({ status: other.status, code: codeOf(other) }).toEqual({
      status: 422,
      code: 'IDEMPOTENCY_KEY_REUSED',
    });
    expect(await tenantsNamed('intent-2')).toBe(0);
  });

  it('keeps no error answer: the corrected request may use the same key', async () => {
    const invalid = await createTenant('fix-and-retry', { id: '-bad', label: 'Fixed' });
    expect(invalid.status).toBe(400);
    const fixed = await createTenant('fix-and-retry', { id: 'fixed', label: 'Fixed' });
    expect({ status: fixed.status, replayed: replayed(fixed) }).toEqual({
      status: 201,
      replayed: null,
    });
  });

  it('refuses a malformed key with 400 and does nothing', async () => {
    const cases: [string, Record<string, string>][] = [
      ['empty', { 'Idempotency-Key': '' }],
      ['too long', { 'Idempotency-Key': 'k'.repeat(256) }],
      ['not ASCII', { 'Idempotency-Key': 'clé' }],
      ['a control character', { 'Idempotency-Key': 'a\tb' }],
    ];
    for (const [why, headers] of cases) {
      const answer = await service.request(createPath, {
        method: 'POST',
        headers,
        query: { id: 'malformed', label: why },
      });
      expect({ why, status: answer.status, code: codeOf(answer) }).toEqual({
        why,
        status: 400,
        code: 'IDEMPOTENCY_KEY_INVALID',
      });
    }
    const twice = await rawPost(`${createPath}?id=malformed&label=Twice`, {
      'Idempotency-Key': ['one', 'two'],
    });
    expect({ status: twice.status, code: twice.code }).toEqual({
      status: 400,
      code: 'IDEMPOTENCY_KEY_INVALID',
    });
    expect(await tenantsNamed('malformed')).toBe(0);
    // 255 characters is the longest key.
    expect((await createTenant('k'.repeat(255), { id: 'longest', label: 'L' })).status).toBe(201);
  });

  it('lets exactly one of concurrent duplicates create; the others wait (409) or replay', async () => {
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => createTenant('concurrent', { id: 'racing', label: 'Race' })),
    );
    const created = answers.filter((answer) => answer.status === 201 && !replayed(answer));
    expect(created).toHaveLength(1);
    for (const answer of answers) {
      if (answer === created[0]) continue;
      if (answer.status === 201) expect(answer.text).toBe(created[0].text);
      else
        expect({ status: answer.status, code: codeOf(answer) }).toEqual({
          status: 409,
          code: 'IDEMPOTENCY_KEY_IN_USE',
        });
    }
    expect(await tenantsNamed('racing')).toBe(1);
  });

  it('answers 409 with Retry-After while the first request with the key is still running', async () => {
    expect((await createTenant('running', { id: 'running', label: 'Run' })).status).toBe(201);
    await database.query(
      `UPDATE idempotency_key SET state = 'in-progress', lease_until = now() + interval '1 hour'
        WHERE expires_at = (SELECT max(expires_at) FROM idempotency_key)`,
    );
    const duplicate = await createTenant('running', { id: 'running', label: 'Run' });
    expect({
      status: duplicate.status,
      code: codeOf(duplicate),
      retryAfter: duplicate.headers.get('retry-after'),
    }).toEqual({ status: 409, code: 'IDEMPOTENCY_KEY_IN_USE', retryAfter: '1' });
  });

  it('replays after a 503 whose COMMIT was applied: the answer was lost, the tenant was made once', async () => {
    proxy.arm('INSERT INTO "tenant"');
    const lost = await createTenant('lost-commit', { id: 'lost', label: 'Lost' });
    await proxy.stalled();
    expect({ status: lost.status, code: codeOf(lost) }).toEqual({
      status: 503,
      code: 'SERVICE_UNAVAILABLE',
    });
    // The COMMIT was applied all the same: what the operations page calls the case no client can settle.
    expect(await tenantsNamed('lost')).toBe(1);
    const retry = await createTenant('lost-commit', { id: 'lost', label: 'Lost' });
    expect({ status: retry.status, replayed: replayed(retry), id: retry.body.id }).toEqual({
      status: 201,
      replayed: 'true',
      id: 'lost',
    });
    const stored = await service.request<Tenant>('/ctrl/api/v1.0/tenants/lost');
    expect(retry.body).toEqual(stored.body);
  });

  it('replays to a client that closed its connection before the answer came', async () => {
    const keys = () => count('SELECT count(*)::int AS count FROM idempotency_key');
    const before = await keys();
    await rawPost(
      `${createPath}?id=hung-up&label=Gone`,
      { 'Idempotency-Key': 'hung-up' },
      {
        hangUpWhen: async () => (await keys()) > before,
      },
    );
    let retry: ApiResponse<Tenant>;
    do {
      retry = await createTenant('hung-up', { id: 'hung-up', label: 'Gone' });
    } while (retry.status === 409);
    expect({ status: retry.status, replayed: replayed(retry), id: retry.body.id }).toEqual({
      status: 201,
      replayed: 'true',
      id: 'hung-up',
    });
    expect(await tenantsNamed('hung-up')).toBe(1);
  });

  it('counts a key per caller and per tenant', async () => {
    const subscribe = (as: 'admin' | 'demo', tenantId: string) =>
      service.request<{ id: string; secret: string }>(
        `${webhooksPath}/create`,
        withKey('per-scope', {
          as,
          headers: { 'x-tenant-id': tenantId },
          body: { url: publicTarget },
        }),
      );
    const byAdmin = await subscribe('admin', 'demo');
    const byDemo = await subscribe('demo', 'demo');
    const forOther = await subscribe('admin', 'other');
    for (const answer of [byAdmin, byDemo, forOther]) {
      expect({ status: answer.status, replayed: replayed(answer) }).toEqual({
        status: 201,
        replayed: null,
      });
    }
    expect(new Set([byAdmin.body.id, byDemo.body.id, forOther.body.id]).size).toBe(3);
  });

  it('replays a webhook secret, sealed meanwhile: the stored answer shows it nowhere', async () => {
    const create = () =>
      service.request<{ id: string; secret: string }>(
        `${webhooksPath}/create`,
        withKey('secret-once', { headers: { 'x-tenant-id': 'demo' }, body: { url: publicTarget } }),
      );
    const first = await create();
    const again = await create();
    expect({ status: again.status, replayed: replayed(again) }).toEqual({
      status: 201,
      replayed: 'true',
    });
    expect(again.body).toEqual(first.body);
    expect(
      await count('SELECT count(*)::int AS count FROM webhook_subscription WHERE id = $1', [
        first.body.id,
      ]),
    ).toBe(1);
    await expectNotStored(first.body.secret);
    await expectNotStored(first.body.secret.slice(6));
  });

  it('replays a rotation and a test event whose COMMIT answer was lost: each was done once', async () => {
    const headers = { 'x-tenant-id': 'demo' };
    const created = await service.request<{ id: string }>(`${webhooksPath}/create`, {
      method: 'POST',
      headers,
      body: { url: publicTarget },
    });
    const sealed = async () =>
      (
        await database.query<{ secret: Buffer; previous: Buffer | null }>(
          `SELECT secret_sealed AS secret, previous_secret_sealed AS previous
             FROM webhook_subscription WHERE id = $1`,
          [created.body.id],
        )
      ).rows[0];
    proxy.arm('UPDATE webhook_subscription');
    const rotate = () =>
      service.request<{ secret: string }>(
        `${webhooksPath}/${created.body.id}/rotate-secret`,
        withKey('rotate-lost', { headers }),
      );
    const lost = await rotate();
    await proxy.stalled();
    expect(lost.status).toBe(503);
    const afterLost = await sealed();
    const retry = await rotate();
    expect({ status: retry.status, replayed: replayed(retry) }).toEqual({
      status: 200,
      replayed: 'true',
    });
    // Rotated once: a second rotation would have moved the lost answer's secret to previous.
    expect(await sealed()).toEqual(afterLost);

    const testEvents = () =>
      count(
        `SELECT count(*)::int AS count FROM webhook_delivery d JOIN webhook_event e ON e.id = d.event_id
          WHERE d.subscription_id = $1 AND e.type = 'webhook.test'`,
        [created.body.id],
      );
    proxy.arm('INSERT INTO webhook_delivery');
    const send = () =>
      service.request<{ deliveryId: string }>(
        `${webhooksPath}/${created.body.id}/test`,
        withKey('test-lost', { headers }),
      );
    const lostTest = await send();
    await proxy.stalled();
    expect(lostTest.status).toBe(503);
    const testRetry = await send();
    expect({ status: testRetry.status, replayed: replayed(testRetry) }).toEqual({
      status: 202,
      replayed: 'true',
    });
    expect(await testEvents()).toBe(1);
  });

  it('replays an issued credential: the same proof, one issuance record, no claim stored in the clear', async () => {
    const credential = alumniCredential({
      credentialSubject: { id: 'did:example:replay', alumniOf: 'Replay University' },
    });
    const issue = (tenantId: string) =>
      service.request<{ verifiableCredential: Json }>(
        issuePath,
        withKey('issue-once', { headers: { 'x-tenant-id': tenantId }, body: { credential } }),
      );
    const first = await issue('demo');
    expect(first.status).toBe(201);
    const again = await issue('demo');
    expect({ status: again.status, replayed: replayed(again) }).toEqual({
      status: 201,
      replayed: 'true',
    });
    expect(again.body).toEqual(first.body);
    const id = first.body.verifiableCredential.id;
    expect(
      await count('SELECT count(*)::int AS count FROM issued_credential WHERE id = $1', [id]),
    ).toBe(1);
    await expectNotStored('Replay University');
    // The same key for another tenant is another request.
    const forOther = await issue('other');
    expect({ status: forOther.status, replayed: replayed(forOther) }).toEqual({
      status: 201,
      replayed: null,
    });
    expect(forOther.body.verifiableCredential.id).not.toBe(id);
  });

  it('frees a key after its 24 hours, and the purge deletes it', async () => {
    expect((await createTenant('day-old', { id: 'day-old', label: 'Old' })).status).toBe(201);
    await database.query(
      `UPDATE idempotency_key SET expires_at = now() - interval '1 second'
        WHERE expires_at = (SELECT max(expires_at) FROM idempotency_key)`,
    );
    const reused = await createTenant('day-old', { id: 'day-new', label: 'New' });
    expect({ status: reused.status, replayed: replayed(reused) }).toEqual({
      status: 201,
      replayed: null,
    });
    await database.query(
      `UPDATE idempotency_key SET expires_at = now() - interval '1 second'
        WHERE expires_at = (SELECT max(expires_at) FROM idempotency_key)`,
    );
    expect(await service.app.get(IdempotencyPurge).purgeExpired()).toBe(1);
    expect(
      await count('SELECT count(*)::int AS count FROM idempotency_key WHERE expires_at <= now()'),
    ).toBe(0);
  });

  it('lets the typed client send a key: calling twice answers the same tenant', async () => {
    const client = service.client();
    const tenant = { id: 'by-client', label: 'By client' };
    const first = await client.createTenant(tenant, { idempotencyKey: 'client-key' });
    await expect(client.createTenant(tenant, { idempotencyKey: 'client-key' })).resolves.toEqual(
      first,
    );
    await expect(client.createTenant(tenant)).rejects.toMatchObject({
      status: 409,
      code: 'TENANT_ALREADY_EXISTS',
    });
  });

  /** Neither the answers kept for keys nor anything else in the table holds `text`. */
  async function expectNotStored(text: string): Promise<void> {
    const { rows } = await database.query<{ row: string }>(
      `SELECT encode(convert_to(k::text, 'UTF8'), 'escape') AS row FROM idempotency_key k`,
    );
    const sealed = await database.query<{ answer_sealed: Buffer | null }>(
      'SELECT answer_sealed FROM idempotency_key',
    );
    expect(rows.some((row) => row.row.includes(text))).toBe(false);
    expect(sealed.rows.some((row) => row.answer_sealed?.includes(Buffer.from(text)))).toBe(false);
  }

  /**
   * A POST with headers as given (repeated ones included), as admin; with `hangUpWhen`, the connection is
   * closed as soon as it holds, before any answer is read.
   */
  async function rawPost(
    path: string,
    headers: Record<string, string | string[]>,
    options: { hangUpWhen?: () => Promise<boolean> } = {},
  ): Promise<{ status: number; code?: string }> {
    const url = new URL(path, service.url);
    const token = await service.tokenFor('admin');
    return new Promise((resolve, reject) => {
      const request = httpRequest(url, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, ...headers },
      });
      request.on('error', (error) => {
        if (options.hangUpWhen !== undefined) resolve({ status: 0 });
        else reject(error);
      });
      request.on('response', (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => {
          const { code } = JSON.parse(text || '{}') as { code?: string };
          resolve({ status: response.statusCode ?? 0, code });
        });
      });
      request.end();
      const hangUpWhen = options.hangUpWhen;
      if (hangUpWhen !== undefined) {
        void (async () => {
          // Bounded, so that a service that never takes the key fails the test instead of hanging it.
          const deadline = Date.now() + 10_000;
          while (!(await hangUpWhen()) && Date.now() < deadline) {
            await new Promise((next) => setTimeout(next, 5));
          }
          request.destroy();
          resolve({ status: 0 });
        })();
      }
    });
  }
});
