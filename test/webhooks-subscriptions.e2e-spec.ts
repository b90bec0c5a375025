import pg from 'pg';
import { KeyVault } from '../src/secrets/key-vault.js';
import { startTestService, type TestService } from './support/test-service.js';

const webhooks = '/ctrl/api/v1.0/webhooks';
const publicTarget = 'https://93.184.215.14/agent-events';

/**
 * Subscriptions as a tenant manages them: the secret once and sealed, tenant isolation, and the SSRF
 * guard refusing each forbidden class of target when the subscription is made (outside local mode).
 */
describe('Webhook subscriptions', () => {
  let service: TestService;
  let database: pg.Client;

  const create = (tenantId: string, body: unknown, as: 'admin' | 'demo' = 'admin') =>
    service.request<Record<string, unknown>>(`${webhooks}/create`, {
      method: 'POST',
      as,
      headers: { 'x-tenant-id': tenantId },
      body,
    });

  beforeAll(async () => {
    service = await startTestService();
    database = new pg.Client({ connectionString: service.databaseUrl });
    await database.connect();
    for (const id of ['demo', 'other']) await service.client().createTenant({ id, label: id });
  });
  afterAll(async () => {
    await database.end();
    await service.close();
  });

  it('shows the secret once, stores it sealed, and never lists it', async () => {
    const created = await create('demo', { url: publicTarget, description: 'CRM' }, 'demo');
    expect(created.status).toBe(201);
    const secret = String(created.body.secret);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(created.body).toMatchObject({
      tenantId: 'demo',
      url: publicTarget,
      events: [],
      enabled: true,
    });
    const id = String(created.body.id);
    const read = await service.client('demo').getWebhook('demo', id);
    const listed = await service.client('demo').listWebhooks('demo');
    expect(read).not.toHaveProperty('secret');
    expect(listed.content.map((one) => one.id)).toContain(id);
    expect(JSON.stringify([read, listed])).not.toContain(secret.slice(6));
    const { rows } = await database.query<{ secret_sealed: Buffer }>(
      'SELECT secret_sealed FROM webhook_subscription WHERE id = $1',
      [id],
    );
    const stored = rows[0].secret_sealed;
    expect(stored.includes(Buffer.from(secret))).toBe(false);
    expect(stored.includes(Buffer.from(secret.slice(6), 'base64'))).toBe(false);
  });

  it('loses no rotation: of two at once, one secret is the current one and the other the previous', async () => {
    const id = String((await create('demo', { url: publicTarget })).body.id);
    const client = service.client('demo');
    const vault = service.app.get(KeyVault);
    /** The secrets that sign now, opened as the dispatcher opens them. */
    const signing = async () => {
      const { rows } = await database.query<Record<string, Buffer | string | null>>(
        `SELECT secret_sealed, secret_master_key_id, previous_secret_sealed,
                previous_secret_master_key_id FROM webhook_subscription WHERE id = $1`,
        [id],
      );
      const [row] = rows;
      const open = (sealed: unknown, keyId: unknown) =>
        vault.open(id, sealed as Buffer, 'webhook-secret', keyId as string).toString('utf8');
      return {
        current: open(row.secret_sealed, row.secret_master_key_id),
        previous: open(row.previous_secret_sealed, row.previous_secret_master_key_id),
      };
    };
    for (let round = 0; round < 10; round++) {
      const rotated = await Promise.all([
        client.rotateWebhookSecret('demo', id),
        client.rotateWebhookSecret('demo', id),
      ]);
      const { current, previous } = await signing();
      expect([current, previous].sort()).toEqual(rotated.map((one) => one.secret).sort());
    }
    // A change made while a rotation runs undoes neither.
    for (let round = 0; round < 10; round++) {
      const [changed, rotated] = await Promise.all([
        client.updateWebhook('demo', id, { description: `round ${round}` }),
        client.rotateWebhookSecret('demo', id),
      ]);
      expect(changed.description).toBe(`round ${round}`);
      expect((await signing()).current).toBe(rotated.secret);
      expect((await client.getWebhook('demo', id)).description).toBe(`round ${round}`);
    }
  });

  it('pages subscriptions by cursor, newest first, and refuses a cursor it did not give', async () => {
    const made = [];
    for (let n = 0; n < 3; n++)
      made.push(String((await create('demo', { url: publicTarget })).body.id));
    const client = service.client('demo');
    const all = await client.listWebhooks('demo', { size: 100 });
    const walked = [];
    let page = await client.listWebhooks('demo', { size: 2 });
    walked.push(...page.content);
    while (page.after !== null) {
      page = await client.listWebhooks('demo', { size: 2, after: page.after });
      expect(page).toMatchObject({ number: null, totalElements: null, totalPages: null });
      walked.push(...page.content);
    }
    expect(walked.map((one) => one.id)).toEqual(all.content.map((one) => one.id));
    expect(walked.slice(0, 3).map((one) => one.id)).toEqual(made.reverse());
    // A cursor names a position, not rows: under another tenant it shows that tenant's own.
    const first = await client.listWebhooks('demo', { size: 1 });
    const elsewhere = await service.client().listWebhooks('other', { after: first.after! });
    expect(elsewhere.content.every((one) => one.tenantId === 'other')).toBe(true);
    const forged = Buffer.from(JSON.stringify(['2026-11-25T10:00:00.000000Z', 'x'])).toString(
      'base64url',
    );
    for (const after of [forged, '%%%']) {
      const refused = await service.request<{ code: string }>(webhooks, {
        as: 'demo',
        headers: { 'x-tenant-id': 'demo' },
        query: { after },
      });
      expect({ status: refused.status, code: refused.body.code }).toEqual({
        status: 400,
        code: 'VALIDATION_FAILED',
      });
    }
  });

  it("keeps one tenant's subscriptions from another", async () => {
    const { body } = await create('other', { url: publicTarget });
    const id = String(body.id);
    // demo may act for demo only.
    const asDemo = await service.request(`${webhooks}/${id}`, {
      as: 'demo',
      headers: { 'x-tenant-id': 'other' },
    });
    expect(asDemo.status).toBe(403);
    // Under its own tenant, another tenant's id is simply not there: the same 404 as a made-up one.
    for (const path of [`${webhooks}/${id}`, `${webhooks}/${id}/delete`]) {
      const answer = await service.request<{ code: string }>(path, {
        as: 'demo',
        method: path.endsWith('delete') ? 'POST' : 'GET',
        headers: { 'x-tenant-id': 'demo' },
      });
      expect({ status: answer.status, code: answer.body.code }).toEqual({
        status: 404,
        code: 'WEBHOOK_NOT_FOUND',
      });
    }
    const listed = await service.client('demo').listWebhooks('demo');
    expect(listed.content.map((one) => one.id)).not.toContain(id);
    expect((await service.client().getWebhook('other', id)).id).toBe(id);
  });

  it("lets agent-admin alone subscribe to every tenant's events, apart from the tenants' own subscriptions", async () => {
    const adminPath = '/ctrl/api/v1.0/admin/webhooks';
    // A tenant header on the admin path changes nothing: the subscription is for all tenants.
    const created = await service.request<Record<string, unknown>>(`${adminPath}/create`, {
      method: 'POST',
      headers: { 'x-tenant-id': 'demo' },
      body: { url: publicTarget },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ tenantId: null, url: publicTarget });
    const id = String(created.body.id);
    const tenants = await create('demo', { url: publicTarget }, 'demo');
    const tenantsId = String(tenants.body.id);

    for (const [method, path] of [
      ['POST', `${adminPath}/create`],
      ['GET', adminPath],
      ['GET', `${adminPath}/${id}`],
      ['POST', `${adminPath}/${id}/update`],
      ['POST', `${adminPath}/${id}/rotate-secret`],
      ['POST', `${adminPath}/${id}/test`],
      ['GET', `${adminPath}/${id}/deliveries`],
      ['POST', `${adminPath}/${id}/deliveries/${id}/redeliver`],
      ['POST', `${adminPath}/${id}/delete`],
    ]) {
      const body = method === 'POST' ? { url: publicTarget, enabled: true } : undefined;
      for (const as of ['demo', 'anonymous'] as const) {
        const answer = await service.request(path, {
          method,
          as,
          headers: { 'x-tenant-id': 'demo' },
          body,
        });
        expect({ path, as, status: answer.status }).toEqual({
          path,
          as,
          status: as === 'demo' ? 403 : 401,
        });
      }
    }
    // Each path sees only its own kind: the same 404 as an id that was never made.
    const crossed = [
      await service.request<{ code: string }>(`${webhooks}/${id}`, {
        headers: { 'x-tenant-id': 'demo' },
      }),
      await service.request<{ code: string }>(`${adminPath}/${tenantsId}`),
    ];
    expect(crossed.map((answer) => [answer.status, answer.body.code])).toEqual([
      [404, 'WEBHOOK_NOT_FOUND'],
      [404, 'WEBHOOK_NOT_FOUND'],
    ]);
    const listed = await service.client().listWebhooks(null);
    expect(listed.content.map((one) => one.id)).toEqual([id]);
    expect((await service.client().getWebhook(null, id)).id).toBe(id);
    // The SSRF guard is the same on the admin path.
    const refused = await service.request<{ code: string }>(`${adminPath}/create`, {
      method: 'POST',
      body: { url: 'https://169.254.169.254/latest/meta-data' },
    });
    expect([refused.status, refused.body.code]).toEqual([400, 'VALIDATION_FAILED']);
    await service.client().deleteWebhook(null, id);
  });

  it('answers 404 for an id that is not a UUID, without reaching the database with it', async () => {
    const answer = await service.request<{ code: string }>(`${webhooks}/not-a-uuid`, {
      headers: { 'x-tenant-id': 'demo' },
    });
    expect({ status: answer.status, code: answer.body.code }).toEqual({
      status: 404,
      code: 'WEBHOOK_NOT_FOUND',
    });
  });

  it.each([
    ['plain http', 'http://93.184.215.14/hook', 'only https'],
    ['loopback', 'https://127.0.0.1/hook', 'loopback'],
    ['loopback IPv6', 'https://[::1]/hook', 'loopback'],
    ['a name resolving to loopback', 'https://localhost/hook', 'loopback'],
    ['private', 'https://10.0.0.7/hook', 'private'],
    ['private, IPv4-mapped', 'https://[::ffff:192.168.1.2]/hook', 'private'],
    ['link-local', 'https://169.254.169.254/latest/meta-data', 'linkLocal'],
    ['a cloud metadata address', 'https://100.100.100.200/hook', 'metadata'],
    ['unspecified', 'https://0.0.0.0/hook', 'unspecified'],
    ['credentials in the URL', 'https://user:pass@93.184.215.14/hook', 'credentials'],
    ['not a URL', 'receiver', 'not a URL'],
  ])('refuses a target that is %s', async (_name, url, reason) => {
    const answer = await create('demo', { url });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ code: 'VALIDATION_FAILED' });
    const errors = answer.body.errors as { field: string; message: string }[];
    expect(errors).toEqual([{ field: 'url', message: expect.stringContaining(reason) }]);
  });

  it('refuses enabled: null with a 400 naming the field, and changes nothing', async () => {
    const id = String((await create('demo', { url: publicTarget })).body.id);
    const answer = await service.request<Record<string, unknown>>(`${webhooks}/${id}/update`, {
      method: 'POST',
      headers: { 'x-tenant-id': 'demo' },
      body: { enabled: null },
    });
    expect(answer.status).toBe(400);
    expect(JSON.stringify(answer.body.errors)).toContain('enabled');
    expect((await service.client().getWebhook('demo', id)).enabled).toBe(true);
  });

  // A new URL and enabled: true both clear the pause: one statement must still set it once.
  it('takes a new URL and enabled: true in one update, for a disabled and a paused subscription', async () => {
    const id = String((await create('demo', { url: publicTarget })).body.id);
    await database.query(
      `UPDATE webhook_subscription
          SET enabled = false, consecutive_failures = 9, backoff_until = now() + interval '1 hour',
              disabled_reason = 'too many failures'
        WHERE id = $1`,
      [id],
    );
    const moved = `${publicTarget}/moved`;
    const updated = await service.client().updateWebhook('demo', id, { url: moved, enabled: true });
    expect(updated).toMatchObject({ url: moved, enabled: true });
    const { rows } = await database.query<Record<string, unknown>>(
      `SELECT consecutive_failures, backoff_until, disabled_reason FROM webhook_subscription WHERE id = $1`,
      [id],
    );
    expect(rows).toEqual([{ consecutive_failures: 0, backoff_until: null, disabled_reason: null }]);
    const again = await service
      .client()
      .updateWebhook('demo', id, { url: publicTarget, enabled: true });
    expect(again).toMatchObject({ url: publicTarget, enabled: true });
  });

  it('refuses unknown event types, naming them', async () => {
    const answer = await create('demo', { url: publicTarget, events: ['tenant.created', 'nope'] });
    expect(answer.status).toBe(400);
    expect(JSON.stringify(answer.body.errors)).toContain('events');
  });
});
