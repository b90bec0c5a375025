import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo } from 'node:net';
import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { type NewWebhook } from '../packages/client/src/index.js';
import { WebhookAttempts } from '../src/webhooks/webhook-attempts.js';
import { WebhookRetention } from '../src/webhooks/webhook-retention.js';
import { alumniCredential, issue } from './support/credentials-harness.js';
import { startTestService, type TestService } from './support/test-service.js';

interface Received {
  path: string;
  headers: Record<string, string>;
  body: string;
}

/**
 * Deliveries to real HTTP receivers on loopback, from the outbox in PostgreSQL: Standard Webhooks
 * signatures checked with the `standardwebhooks` library, retries, 410, Retry-After, isolation, and no
 * event for a change that rolled back.
 */
describe('Webhook deliveries', () => {
  let service: TestService;
  let database: pg.Client;
  let server: Server;
  let origin: string;
  const received: Received[] = [];
  /** Per path: the status codes to answer, in order; then 204. */
  const scripts = new Map<string, (number | [number, Record<string, string>])[]>();

  const subscribe = (tenantId: string, path: string, events?: NewWebhook['events']) =>
    service.client().createWebhook(tenantId, { url: `${origin}${path}`, events });

  const arrivals = (path: string) => received.filter((one) => one.path === path);

  async function waitFor<T>(check: () => T | undefined, timeoutMs = 10_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = check();
      if (value !== undefined) return value;
      if (Date.now() > deadline) throw new Error('timed out waiting');
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  /** Claimed as the dispatcher claims it (the attempt counted, leased, a new claim); its claim. */
  const claim = async (deliveryId: string, attempt: number): Promise<string> => {
    const { rows } = await database.query<{ claim_id: string }>(
      `UPDATE webhook_delivery SET attempts = $2, lease_until = now() + interval '20 seconds',
              next_attempt_at = now() + interval '20 seconds', claim_id = gen_random_uuid()
        WHERE id = $1 RETURNING claim_id`,
      [deliveryId, attempt],
    );
    return rows[0].claim_id;
  };

  /** The receiver's answer to that claim's attempt, recorded as the dispatcher records it. */
  const answer = (
    deliveryId: string,
    subscriptionId: string,
    attempt: number,
    claimId: string,
    status: number,
  ) =>
    service.app
      .get(WebhookAttempts)
      .record(
        { id: deliveryId, attempts: attempt, subscription_id: subscriptionId, claim_id: claimId },
        new Date(),
        { status, headers: {}, body: Buffer.alloc(0) },
        undefined,
      );

  const deliveryState = async (deliveryId: string) =>
    (
      await database.query<{ state: string; due: boolean; logged: number }>(
        `SELECT d.state, d.next_attempt_at <= now() AS due,
                (SELECT count(*)::int FROM webhook_attempt a WHERE a.delivery_id = d.id) AS logged
           FROM webhook_delivery d WHERE d.id = $1`,
        [deliveryId],
      )
    ).rows[0];

  beforeAll(async () => {
    server = createServer((request: IncomingMessage, response: ServerResponse) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const path = request.url ?? '';
        received.push({
          path,
          headers: request.headers as Record<string, string>,
          body: Buffer.concat(chunks).toString('utf8'),
        });
        const next = scripts.get(path)?.shift() ?? 204;
        const [status, headers] = Array.isArray(next) ? next : [next, {}];
        // A failure says why in plain text, which the delivery log keeps.
        response.writeHead(
          status,
          status >= 400 ? { 'content-type': 'text/plain', ...headers } : headers,
        );
        response.end(status >= 400 ? 'receiver says no' : '');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    service = await startTestService({
      env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_RETRY_DELAYS_MS: '100,200,300' },
    });
    database = new pg.Client({ connectionString: service.databaseUrl });
    await database.connect();
    for (const id of ['acme', 'other']) {
      await service.client().createTenant({ id, label: id });
    }
  });
  afterAll(async () => {
    await database.end();
    await service.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('delivers tenant and credential events, signed so that the standardwebhooks library verifies them', async () => {
    const { secret } = await subscribe('acme', '/acme');
    await service.client().updateTenant('acme', { label: 'Acme Corp' });
    const credential = (await issue(service, 'acme', alumniCredential())).body.verifiableCredential;
    const revoked = await service.request('/ctrl/api/v1.0/credentials/status', {
      method: 'POST',
      headers: { 'x-tenant-id': 'acme' },
      body: {
        credentialId: credential.id,
        credentialStatus: { type: 'BitstringStatusListEntry', statusPurpose: 'revocation' },
      },
    });
    expect(revoked.status).toBe(204);

    const deliveries = await waitFor(() => {
      const got = arrivals('/acme');
      return got.length >= 3 ? got : undefined;
    });
    const receiver = new Webhook(secret);
    const events = deliveries.map((delivery) => verified(receiver, delivery));
    expect(events.map((event) => event.type).sort()).toEqual([
      'credential.issued',
      'credential.status.changed',
      'tenant.updated',
    ]);
    expect(events.find((event) => event.type === 'tenant.updated')?.data).toEqual({
      id: 'acme',
      label: 'Acme Corp',
    });
    expect(events.find((event) => event.type === 'credential.status.changed')?.data).toEqual({
      tenantId: 'acme',
      credentialId: credential.id,
      statusPurpose: 'revocation',
      status: true,
    });
    // Never the subject's claims.
    expect(deliveries.map((delivery) => delivery.body).join()).not.toContain('School of Examples');

    // A changed body or an old timestamp fails in the receiver's library.
    const [first] = deliveries;
    const headers = {
      'webhook-id': first.headers['webhook-id'],
      'webhook-timestamp': first.headers['webhook-timestamp'],
      'webhook-signature': first.headers['webhook-signature'],
    };
    expect(() => receiver.verify(`${first.body} `, headers)).toThrow();
    expect(() =>
      receiver.verify(first.body, {
        ...headers,
        'webhook-timestamp': String(Number(headers['webhook-timestamp']) - 3600),
      }),
    ).toThrow();
  });

  it('never sends one tenant’s events to another tenant’s subscription', async () => {
    const other = await subscribe('other', '/other');
    await service.client().updateTenant('acme', { label: 'Acme again' });
    await service.client().updateTenant('other', { label: 'Other again' });
    // Deliveries are written with their events, so these are all the subscription will ever get.
    const { rows: deliveries } = await database.query<{ id: string }>(
      'SELECT id FROM webhook_delivery WHERE subscription_id = $1',
      [other.id],
    );
    expect(deliveries).toHaveLength(1);
    const got = await waitFor(() => {
      const list = arrivals('/other');
      return list.length >= 1 ? list : undefined;
    });
    expect(arrivals('/other')).toHaveLength(1);
    expect(JSON.parse(got[0].body)).toMatchObject({
      type: 'tenant.updated',
      data: { id: 'other' },
    });
  });

  it('writes no event for a change that rolled back', async () => {
    const before = await database.query<{ count: number }>(
      'SELECT count(*)::int AS count FROM webhook_event',
    );
    // The issuing transaction writes its record and event, then the signature refuses an undefined term.
    const refused = await issue(
      service,
      'acme',
      alumniCredential({
        notDefinedAnywhere: 'x',
        '@context': ['https://www.w3.org/ns/credentials/v2'],
      }),
    );
    expect(refused.status).toBe(400);
    const deleted = await service.request('/ctrl/api/v1.0/tenants/no-such-tenant/delete', {
      method: 'POST',
    });
    expect(deleted.status).toBe(404);
    // A status change that finds no credential changes nothing and says nothing.
    const unchanged = await service.request('/ctrl/api/v1.0/credentials/status', {
      method: 'POST',
      headers: { 'x-tenant-id': 'acme' },
      body: {
        credentialId: 'urn:uuid:never-issued',
        credentialStatus: { type: 'BitstringStatusListEntry', statusPurpose: 'revocation' },
      },
    });
    expect(unchanged.status).toBe(404);
    const after = await database.query<{ count: number }>(
      'SELECT count(*)::int AS count FROM webhook_event',
    );
    expect(after.rows[0].count).toBe(before.rows[0].count);
  });

  it('retries a receiver that fails, with the same webhook-id, until it answers 2xx', async () => {
    scripts.set('/flaky', [500, 503]);
    await subscribe('acme', '/flaky', ['tenant.updated']);
    await service.client().updateTenant('acme', { label: 'Acme flaky' });
    const got = await waitFor(() => {
      const list = arrivals('/flaky');
      return list.length >= 3 ? list : undefined;
    });
    expect(new Set(got.map((one) => one.headers['webhook-id'])).size).toBe(1);
    // The receiver has the request before the dispatcher has written down its answer.
    const delivery = await waitForValue(async () => {
      const { rows } = await database.query<{ state: string; attempts: number }>(
        'SELECT state, attempts FROM webhook_delivery WHERE id = $1',
        [got[0].headers['webhook-id']],
      );
      return rows[0]?.state === 'delivered' ? rows[0] : undefined;
    });
    expect(delivery).toEqual({ state: 'delivered', attempts: 3 });
    const attempts = await database.query<{ status_code: number; response_excerpt: string }>(
      'SELECT status_code, response_excerpt FROM webhook_attempt WHERE delivery_id = $1 ORDER BY attempt',
      [got[0].headers['webhook-id']],
    );
    expect(attempts.rows.map((row) => row.status_code)).toEqual([500, 503, 204]);
    expect(attempts.rows[0].response_excerpt).toBe('receiver says no');
  });

  it('rotates the secret: both the old and the new secret verify during the grace period', async () => {
    const { id, secret: old } = await subscribe('acme', '/rotated', ['webhook.test']);
    const { secret: fresh, previousSecretExpiresAt } = await service
      .client()
      .rotateWebhookSecret('acme', id);
    expect(fresh).not.toBe(old);
    expect(Date.parse(previousSecretExpiresAt) - Date.now()).toBeGreaterThan(23 * 3600 * 1000);
    await service.client().testWebhook('acme', id);
    const [delivery] = await waitFor(() => {
      const list = arrivals('/rotated');
      return list.length >= 1 ? list : undefined;
    });
    const headers = {
      'webhook-id': delivery.headers['webhook-id'],
      'webhook-timestamp': delivery.headers['webhook-timestamp'],
      'webhook-signature': delivery.headers['webhook-signature'],
    };
    expect(headers['webhook-signature'].split(' ')).toHaveLength(2);
    for (const secret of [old, fresh]) {
      expect(new Webhook(secret).verify(delivery.body, headers)).toMatchObject({
        type: 'webhook.test',
        data: { subscriptionId: id },
      });
    }
  });

  it('logs every attempt, redelivers with the same webhook-id, and resumes a disabled subscription', async () => {
    scripts.set('/log', [410]);
    const { id } = await subscribe('acme', '/log', ['webhook.test']);
    const { deliveryId } = await service.client().testWebhook('acme', id);
    await waitFor(() => arrivals('/log')[0]);
    const disabled = await waitForRow(database, id);
    expect(disabled.enabled).toBe(false);
    const page = await service.client().listWebhookDeliveries('acme', id);
    expect(page.content).toEqual([
      expect.objectContaining({
        id: deliveryId,
        eventType: 'webhook.test',
        state: 'failed',
        attempts: 1,
        log: [
          expect.objectContaining({
            attempt: 1,
            statusCode: 410,
            responseExcerpt: 'receiver says no',
          }),
        ],
      }),
    ]);
    // Resumed and sent again: the receiver gets the same webhook-id a second time.
    const resumed = await service.client().updateWebhook('acme', id, { enabled: true });
    expect(resumed).toMatchObject({ enabled: true, disabledReason: null });
    await service.client().redeliverWebhook('acme', id, deliveryId);
    const again = await waitFor(() => arrivals('/log')[1]);
    expect(again.headers['webhook-id']).toBe(deliveryId);
  });

  it('keeps a redelivery made while an attempt is under way: that attempt is logged, and it goes out again', async () => {
    const { id } = await subscribe('acme', '/redelivered-meanwhile', ['webhook.test']);
    // Disabled: the dispatcher leaves its deliveries to this test, which plays its part in turn.
    await service.client().updateWebhook('acme', id, { enabled: false });
    // Answered 2xx, and failed at the end of the retry schedule (100, 200, 300 ms: the fourth attempt).
    const answers: [status: number, attempt: number][] = [
      [204, 1],
      [500, 4],
    ];
    const ids: string[] = [];
    for (const [status, attempt] of answers) {
      const { deliveryId } = await service.client().testWebhook('acme', id);
      ids.push(deliveryId);
      const claimId = await claim(deliveryId, attempt);
      await service.client().redeliverWebhook('acme', id, deliveryId);
      await answer(deliveryId, id, attempt, claimId, status);
      expect(await deliveryState(deliveryId)).toEqual({ state: 'pending', due: true, logged: 1 });
    }
    await service.client().updateWebhook('acme', id, { enabled: true });
    const sent = await waitFor(() => {
      const list = arrivals('/redelivered-meanwhile');
      return list.length >= 2 ? list : undefined;
    });
    expect(sent.map((one) => one.headers['webhook-id']).sort()).toEqual([...ids].sort());
  });

  it("decides a delivery by its current claim's answer, not by a late one of a claim before", async () => {
    const { id } = await subscribe('acme', '/claimed-again', ['webhook.test']);
    await service.client().updateWebhook('acme', id, { enabled: false });
    const { deliveryId } = await service.client().testWebhook('acme', id);
    // The last try of the schedule under way, then redelivered and claimed again before it answers.
    const before = await claim(deliveryId, 4);
    await service.client().redeliverWebhook('acme', id, deliveryId);
    const current = await claim(deliveryId, 1);
    await answer(deliveryId, id, 4, before, 500);
    expect(await deliveryState(deliveryId)).toMatchObject({ state: 'pending', logged: 1 });
    await answer(deliveryId, id, 1, current, 204);
    expect(await deliveryState(deliveryId)).toMatchObject({ state: 'delivered', logged: 2 });
    // A lease that lapsed and was claimed again: the first claim's late 2xx decides nothing either.
    const { deliveryId: lapsed } = await service.client().testWebhook('acme', id);
    const first = await claim(lapsed, 1);
    const second = await claim(lapsed, 2);
    await answer(lapsed, id, 1, first, 204);
    expect(await deliveryState(lapsed)).toMatchObject({ state: 'pending', logged: 1 });
    await answer(lapsed, id, 2, second, 204);
    expect(await deliveryState(lapsed)).toMatchObject({ state: 'delivered', logged: 2 });
    await service.client().deleteWebhook('acme', id);
  });

  it('prunes finished events past the retention period, never a pending one', async () => {
    await database.query(
      `INSERT INTO webhook_event (id, tenant_id, type, body, created_at)
       VALUES ('00000000-0000-4000-8000-000000000001', 'acme', 'tenant.updated', '{}', now() - interval '8 days'),
              ('00000000-0000-4000-8000-000000000002', 'acme', 'tenant.updated', '{}', now() - interval '8 days'),
              ('00000000-0000-4000-8000-000000000003', 'acme', 'tenant.updated', '{}', now() - interval '6 days')`,
    );
    const { id } = await subscribe('acme', '/never-called', ['webhook.test']);
    await service.client().updateWebhook('acme', id, { enabled: false });
    await database.query(
      `INSERT INTO webhook_delivery (id, subscription_id, event_id, state)
       VALUES (gen_random_uuid(), $1, '00000000-0000-4000-8000-000000000002', 'pending')`,
      [id],
    );
    expect(await service.app.get(WebhookRetention).prune()).toBeGreaterThanOrEqual(1);
    const { rows } = await database.query<{ id: string }>(
      `SELECT id FROM webhook_event WHERE id::text LIKE '00000000-0000-4000-8000-%' ORDER BY id`,
    );
    expect(rows.map((row) => row.id.slice(-1))).toEqual(['2', '3']);
  });

  it('checks the target again at delivery: a URL changed to a metadata address is not called', async () => {
    const { id } = await subscribe('acme', '/moved', ['tenant.updated']);
    // As if DNS or an edit had turned the target into a forbidden one after it was checked.
    await database.query('UPDATE webhook_subscription SET url = $2 WHERE id = $1', [
      id,
      'http://169.254.169.254/latest/meta-data',
    ]);
    await service.client().updateTenant('acme', { label: 'Acme moved' });
    const attempt = await waitForAttempt(database, id);
    expect(attempt).toMatchObject({
      status_code: null,
      error: expect.stringContaining('linkLocal'),
    });
  });

  it('honours Retry-After, and a 410 disables the subscription', async () => {
    scripts.set('/later', [[503, { 'retry-after': '2' }]]);
    await subscribe('acme', '/later', ['tenant.updated']);
    scripts.set('/gone', [410]);
    const gone = await subscribe('acme', '/gone', ['tenant.updated']);
    await service.client().updateTenant('acme', { label: 'Acme later' });
    const first = await waitFor(() => arrivals('/later')[0]);
    const second = await waitFor(() => arrivals('/later')[1], 8_000);
    const waited =
      Number(second.headers['webhook-timestamp']) - Number(first.headers['webhook-timestamp']);
    expect(waited).toBeGreaterThanOrEqual(1);
    await waitFor(() => arrivals('/gone')[0]);
    const row = await waitForRow(database, gone.id);
    expect(row).toEqual({ enabled: false, disabled_reason: 'the receiver answered 410 Gone' });
  });

  it("delivers every tenant's events, tenant lifecycle included, to an agent-admin's all-tenant subscription", async () => {
    const admin = service.client();
    const { id, secret, tenantId } = await admin.createWebhook(null, { url: `${origin}/all` });
    expect(tenantId).toBeNull();
    await admin.createTenant({ id: 'newco', label: 'NewCo' });
    await admin.updateTenant('other', { label: 'Other, seen by all' });
    const credential = (await issue(service, 'newco', alumniCredential())).body
      .verifiableCredential;
    await admin.deleteTenant('newco');
    const { deliveryId } = await admin.testWebhook(null, id);

    const deliveries = await waitFor(() => {
      const got = arrivals('/all');
      return got.length >= 5 ? got : undefined;
    });
    const events = deliveries.map((delivery) => verified(new Webhook(secret), delivery));
    expect(
      events.map((event) => `${event.type} ${event.data.id ?? event.data.tenantId ?? ''}`).sort(),
    ).toEqual([
      'credential.issued newco',
      'tenant.created newco',
      'tenant.deleted newco',
      'tenant.updated other',
      'webhook.test ',
    ]);
    expect(events.find((event) => event.type === 'credential.issued')?.data.credentialId).toBe(
      credential.id,
    );
    expect(events.find((event) => event.type === 'tenant.created')?.data).toMatchObject({
      id: 'newco',
      did: expect.stringMatching(/^did:key:z6Mk/),
    });

    // The log, redelivery, rotation and changes work the same way on the admin path.
    const log = await admin.listWebhookDeliveries(null, id);
    expect(log.totalElements).toBe(5);
    // The same log by cursor, two at a time: the same deliveries in the same order, nothing counted.
    const walked = [];
    let page = await admin.listWebhookDeliveries(null, id, { size: 2 });
    walked.push(...page.content);
    while (page.after !== null) {
      page = await admin.listWebhookDeliveries(null, id, { size: 2, after: page.after });
      expect(page).toMatchObject({ number: null, totalElements: null });
      walked.push(...page.content);
    }
    expect(walked.map((delivery) => delivery.id)).toEqual(log.content.map((d) => d.id));
    await admin.redeliverWebhook(null, id, deliveryId);
    expect((await waitFor(() => arrivals('/all')[5])).headers['webhook-id']).toBe(deliveryId);
    const rotated = await admin.rotateWebhookSecret(null, id);
    expect(rotated.secret).not.toBe(secret);
    expect(await admin.updateWebhook(null, id, { events: ['tenant.created'] })).toMatchObject({
      events: ['tenant.created'],
    });
    expect((await admin.listWebhooks(null)).content.map((one) => one.id)).toEqual([id]);
    expect(await admin.listWebhooks(null, { size: 1 })).toMatchObject({ after: null });
    expect((await admin.getWebhook(null, id)).tenantId).toBeNull();
    await admin.deleteWebhook(null, id);
    expect((await admin.listWebhooks(null)).totalElements).toBe(0);
  });

  it('writes an issued credential’s deliveries by the rule of every event: to the enabled subscriptions that want it', async () => {
    // The issue statement writes its event and deliveries itself (EventOutbox.inStatement).
    const wanting = await subscribe('acme', '/issued-wanting', ['credential.issued']);
    const elsewhere = await subscribe('acme', '/issued-elsewhere', ['tenant.updated']);
    const disabled = await subscribe('acme', '/issued-disabled', ['credential.issued']);
    const otherTenant = await subscribe('other', '/issued-other-tenant', ['credential.issued']);
    await database.query('UPDATE webhook_subscription SET enabled = false WHERE id = $1', [
      disabled.id,
    ]);
    const credential = (await issue(service, 'acme', alumniCredential())).body.verifiableCredential;
    const { rows } = await database.query<{ subscription_id: string }>(
      `SELECT d.subscription_id FROM webhook_delivery d JOIN webhook_event e ON e.id = d.event_id
        WHERE e.type = 'credential.issued' AND e.body::jsonb -> 'data' ->> 'credentialId' = $1`,
      [credential.id],
    );
    const receivers = rows.map((row) => row.subscription_id);
    expect(receivers).toContain(wanting.id);
    expect(receivers).not.toContain(elsewhere.id);
    expect(receivers).not.toContain(disabled.id);
    expect(receivers).not.toContain(otherTenant.id);
  });
});

/** The event of a delivery, as a receiver using the standardwebhooks library reads it (or it throws). */
function verified(receiver: Webhook, delivery: Received) {
  return receiver.verify(delivery.body, {
    'webhook-id': delivery.headers['webhook-id'],
    'webhook-timestamp': delivery.headers['webhook-timestamp'],
    'webhook-signature': delivery.headers['webhook-signature'],
  }) as { type: string; timestamp: string; data: Record<string, string | undefined> };
}

function waitForRow(
  database: pg.Client,
  id: string,
): Promise<{ enabled: boolean; disabled_reason: string | null }> {
  return waitForValue(async () => {
    const { rows } = await database.query<{ enabled: boolean; disabled_reason: string | null }>(
      'SELECT enabled, disabled_reason FROM webhook_subscription WHERE id = $1',
      [id],
    );
    return rows[0]?.enabled === false ? rows[0] : undefined;
  });
}

function waitForAttempt(
  database: pg.Client,
  subscriptionId: string,
): Promise<{ status_code: number | null; error: string | null }> {
  return waitForValue(async () => {
    const { rows } = await database.query<{ status_code: number | null; error: string | null }>(
      `SELECT a.status_code, a.error FROM webhook_attempt a
         JOIN webhook_delivery d ON d.id = a.delivery_id WHERE d.subscription_id = $1`,
      [subscriptionId],
    );
    return rows[0];
  });
}

async function waitForValue<T>(read: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
