import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo } from 'node:net';
import pg from 'pg';
import { pauseAfterFailures } from '../src/webhooks/webhook-attempts.js';
import { perSubscription, perTenant } from '../src/webhooks/webhook-claim.js';
import { WebhookDeliveryRepository } from '../src/webhooks/webhook-delivery.repository.js';
import { type DeliveredAttempt } from '../src/webhooks/webhook-delivery.rows.js';
import { startTestService, type TestService } from './support/test-service.js';

interface Held {
  path: string;
  id: string;
  response: ServerResponse;
}

/**
 * One tenant's receivers must not hold up another tenant's webhooks: deliveries in flight are capped per
 * subscription and per tenant across instances, a receiver that keeps failing is paused (its circuit),
 * a delivery whose subscription is deleted mid-flight just ends, and the delivery log keeps no more of
 * an answer than a short text or JSON excerpt. Written as the attacks.
 */
describe('Webhook fairness', () => {
  const lines: string[] = [];
  let service: TestService;
  let database: pg.Client;
  let server: Server;
  let origin: string;
  /** Requests to /hang/... and /hold/... wait here until a test answers or drops them. */
  const held: Held[] = [];
  /** Arrival times by path. */
  const arrivals = new Map<string, number[]>();
  /** Per path prefix: what /fail/... answers now. */
  const failing = new Map<string, boolean>();
  /** Most requests held at once, per tenant (`/hang/<tenant>/`) and per path. */
  const most = new Map<string, number>();

  const heldAt = (prefix: string) => held.filter((one) => one.path.startsWith(prefix)).length;

  function answerWith(response: ServerResponse, status: number, type: string, body: string): void {
    response.writeHead(status, { 'content-type': type });
    response.end(body);
  }

  async function waitFor<T>(
    check: () => T | undefined | Promise<T | undefined>,
    timeoutMs = 10_000,
  ) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await check();
      if (value !== undefined) return value;
      if (Date.now() > deadline) throw new Error('timed out waiting');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** `count` real events for the tenant (label changes), one request each. */
  async function events(tenantId: string, count: number): Promise<void> {
    for (let n = 0; n < count; n++) {
      await service.client().updateTenant(tenantId, { label: `${tenantId} ${n}` });
    }
  }

  const subscribe = async (tenantId: string, path: string) =>
    (
      await service
        .client()
        .createWebhook(tenantId, { url: `${origin}${path}`, events: ['tenant.updated'] })
    ).id;

  const logged = () =>
    lines.map((line) => JSON.parse(line) as { level: string; event?: string; until?: string });
  const gone = () => logged().filter((line) => line.event === 'webhook.delivery-gone').length;

  /**
   * Ends a test: its subscriptions go with their backlog, and the requests their receivers hold are
   * dropped; once each has ended, the dispatcher's slots are free for the next test.
   */
  async function cleanUp(tenantId: string): Promise<void> {
    const before = gone();
    const page = await service.client().listWebhooks(tenantId);
    for (const { id } of page.content) await service.client().deleteWebhook(tenantId, id);
    const dropped = held.splice(0);
    for (const one of dropped) one.response.destroy();
    await waitFor(() => (gone() - before >= dropped.length ? true : undefined));
  }

  /** The delivery attempts recorded for a tenant's subscriptions (a timeout records one). */
  async function attemptsOf(tenantId: string): Promise<number> {
    const { rows } = await database.query<{ count: number }>(
      `SELECT count(*)::int AS count FROM webhook_attempt a JOIN webhook_delivery d ON d.id = a.delivery_id
         JOIN webhook_subscription s ON s.id = d.subscription_id WHERE s.tenant_id = $1`,
      [tenantId],
    );
    return rows[0].count;
  }

  /** `count` events for one subscription at once, as that many committed changes leave them. */
  async function backlog(tenantId: string, subscriptionId: string, count: number): Promise<void> {
    await database.query(
      `WITH events AS (
         INSERT INTO webhook_event (id, tenant_id, type, body)
         SELECT gen_random_uuid(), $1, 'tenant.updated',
                json_build_object('type', 'tenant.updated', 'data', json_build_object('n', n))::text
           FROM generate_series(1, $3::int) AS n RETURNING id)
       INSERT INTO webhook_delivery (id, subscription_id, event_id)
       SELECT gen_random_uuid(), $2, id FROM events`,
      [tenantId, subscriptionId, count],
    );
  }

  beforeAll(async () => {
    server = createServer((request: IncomingMessage, response: ServerResponse) => {
      request.resume();
      request.on('end', () => {
        const path = request.url ?? '';
        const id = String(request.headers['webhook-id']);
        arrivals.set(path, [...(arrivals.get(path) ?? []), Date.now()]);
        if (path.startsWith('/hang/') || path.startsWith('/hold/')) {
          held.push({ path, id, response });
          for (const key of [path.split('/').slice(0, 3).join('/') + '/', path]) {
            most.set(key, Math.max(most.get(key) ?? 0, heldAt(key)));
          }
          return;
        }
        if (path.startsWith('/fail/') && failing.get(path) !== false) {
          return answerWith(response, 503, 'text/plain', 'receiver down');
        }
        if (path === '/text') {
          return answerWith(response, 503, 'text/plain; charset=utf-8', `a${'é'.repeat(600)}`);
        }
        if (path === '/json')
          return answerWith(response, 422, 'application/problem+json', '{"title":"no"}');
        if (path === '/binary') {
          return answerWith(response, 500, 'application/octet-stream', 'SSH-2.0-OpenSSH_9.6\r\n');
        }
        if (path === '/html')
          return answerWith(response, 404, 'text/html', '<h1>Admin console</h1>');
        if (path === '/nul') return answerWith(response, 200, 'text/plain', 'ok\u0000done');
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    service = await startTestService({
      env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' },
      logDestination: { write: (line) => lines.push(line) },
    });
    database = new pg.Client({ connectionString: service.databaseUrl });
    await database.connect();
    for (const id of ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta']) {
      await service.client().createTenant({ id, label: id });
    }
  });
  afterAll(async () => {
    for (const one of held.splice(0)) one.response.destroy();
    await database.end();
    await service.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it("delivers another tenant's event at once while a receiver that never answers has a backlog", async () => {
    await subscribe('alpha', '/hang/alpha/a');
    await subscribe('beta', '/ok/beta');
    await events('alpha', 48);
    // The dead receiver holds what the dispatcher gave it: its share, not every slot.
    await waitFor(() => (heldAt('/hang/alpha/') >= perSubscription ? true : undefined));

    await events('beta', 1);
    await waitFor(() => arrivals.get('/ok/beta'));
    // Nothing of alpha's timed out or was answered first: beta did not wait for alpha's slots.
    expect(heldAt('/hang/alpha/')).toBe(perSubscription);
    expect(most.get('/hang/alpha/')).toBe(perSubscription);
    expect(await attemptsOf('alpha')).toBe(0);
    await cleanUp('alpha');
  });

  it('keeps a tenant with several dead receivers within its share, and the others get through', async () => {
    for (const path of ['/hang/gamma/1', '/hang/gamma/2', '/hang/gamma/3']) {
      await subscribe('gamma', path);
    }
    await events('gamma', 12);
    await waitFor(() => (heldAt('/hang/gamma/') >= perTenant ? true : undefined));

    await events('beta', 1);
    await waitFor(() => {
      const list = arrivals.get('/ok/beta') ?? [];
      return list.length >= 2 ? list : undefined;
    });
    // Before any of gamma's timed out or was answered: beta did not wait for gamma's slots.
    expect(await attemptsOf('gamma')).toBe(0);
    expect(most.get('/hang/gamma/')).toBe(perTenant);
    for (const path of ['/hang/gamma/1', '/hang/gamma/2', '/hang/gamma/3']) {
      expect(most.get(path)).toBeLessThanOrEqual(perSubscription);
    }
    await cleanUp('gamma');
  });

  it('pauses a receiver that keeps failing, backlog and all, then probes it and drains once it answers', async () => {
    const id = await subscribe('delta', '/fail/delta');
    await backlog('delta', id, 48);
    const paused = await waitFor(() => logged().find((line) => line.event === 'webhook.paused'));
    expect(paused).toMatchObject({ level: 'info', failures: pauseAfterFailures });
    // What was claimed before it paused finishes; the rest waits for the pause, untried.
    const { content } = await service.client().listWebhookDeliveries('delta', id, { size: 100 });
    const waiting = content.filter((delivery) => delivery.attempts === 0);
    expect(content).toHaveLength(48);
    expect(48 - waiting.length).toBeLessThanOrEqual(pauseAfterFailures + perSubscription);
    for (const delivery of waiting) {
      expect(Date.parse(delivery.nextAttemptAt ?? '')).toBeGreaterThanOrEqual(
        Date.parse(paused.until ?? ''),
      );
    }

    // It recovers: the next probe is delivered, and so is everything that waited.
    failing.set('/fail/delta', false);
    await waitFor(async () => {
      const { rows } = await database.query<{ count: number }>(
        `SELECT count(*)::int AS count FROM webhook_delivery WHERE subscription_id = $1 AND state = 'delivered'`,
        [id],
      );
      return rows[0].count === 48 ? true : undefined;
    }, 20_000);
    const { rows } = await database.query<{
      consecutive_failures: number;
      backoff_until: Date | null;
    }>('SELECT consecutive_failures, backoff_until FROM webhook_subscription WHERE id = $1', [id]);
    expect(rows[0]).toEqual({ consecutive_failures: 0, backoff_until: null });
    await cleanUp('delta');
  });

  it('finishes a delivery whose subscription is deleted while the receiver holds it, logging no error', async () => {
    const from = lines.length;
    const answered = await subscribe('epsilon', '/hold/epsilon/ok');
    const refused = await subscribe('epsilon', '/hold/epsilon/no');
    await service.client().testWebhook('epsilon', answered);
    await service.client().testWebhook('epsilon', refused);
    await waitFor(() => (heldAt('/hold/epsilon/') === 2 ? true : undefined));

    for (const id of [answered, refused]) {
      const deleted = await service.request(`/ctrl/api/v1.0/webhooks/${id}/delete`, {
        method: 'POST',
        headers: { 'x-tenant-id': 'epsilon' },
      });
      expect(deleted.status).toBe(204);
    }
    for (const one of held.splice(0)) {
      if (one.path.endsWith('/ok')) one.response.writeHead(204).end();
      else answerWith(one.response, 503, 'text/plain', 'busy');
    }
    // Both attempts have been dealt with, one way or the other.
    await waitFor(() => {
      const done = logged()
        .slice(from)
        .filter((line) =>
          ['webhook.delivery-gone', 'webhook.dispatch-failed'].includes(line.event ?? ''),
        );
      return done.length >= 2 ? done : undefined;
    });
    expect(
      logged()
        .slice(from)
        .filter((line) => ['error', 'fatal'].includes(line.level)),
    ).toEqual([]);
  });

  it('records delivered attempts in one statement, skipping a delivery another transaction holds', async () => {
    const id = await subscribe('eta', '/ok/eta');
    // Disabled: the dispatcher leaves its deliveries to this test.
    await database.query('UPDATE webhook_subscription SET enabled = false WHERE id = $1', [id]);
    await backlog('eta', id, 3);
    const ids = (
      await database.query<{ id: string }>(
        'SELECT id FROM webhook_delivery WHERE subscription_id = $1 ORDER BY id',
        [id],
      )
    ).rows.map((row) => row.id);
    // Claimed as the dispatcher claims them: an answer decides the delivery its claim holds.
    const claims = new Map(
      (
        await database.query<{ id: string; claim_id: string }>(
          `UPDATE webhook_delivery SET attempts = 1, lease_until = now() + interval '20 seconds',
                  claim_id = gen_random_uuid()
            WHERE subscription_id = $1 RETURNING id, claim_id`,
          [id],
        )
      ).rows.map((row) => [row.id, row.claim_id]),
    );
    const delivered = (deliveryId: string): DeliveredAttempt => ({
      attempt: {
        deliveryId,
        claimId: claims.get(deliveryId)!,
        attempt: 1,
        startedAt: new Date(),
        statusCode: 204,
        durationMs: 3,
        error: null,
        responseExcerpt: null,
        responseContentType: null,
        finalState: 'delivered',
        waitMs: 0,
      },
      subscriptionId: id,
    });
    const repository = service.app.get(WebhookDeliveryRepository);
    const blocker = new pg.Client({ connectionString: service.databaseUrl });
    await blocker.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query('SELECT id FROM webhook_delivery WHERE id = $1 FOR UPDATE', [ids[0]]);
      const together = await repository.recordDelivered(ids.map(delivered), true);
      await blocker.query('COMMIT');
      expect([...together].sort()).toEqual(ids.slice(1));
      expect([...(await repository.recordDelivered([delivered(ids[0])]))]).toEqual([ids[0]]);
    } finally {
      await blocker.end();
    }
    const { rows } = await database.query<{ state: string; attempts: number }>(
      `SELECT d.state, (SELECT count(*)::int FROM webhook_attempt a WHERE a.delivery_id = d.id) AS attempts
         FROM webhook_delivery d WHERE d.subscription_id = $1 ORDER BY d.id`,
      [id],
    );
    expect(rows).toEqual(ids.map(() => ({ state: 'delivered', attempts: 1 })));
    await cleanUp('eta');
  });

  it('records deliveries answered together, each once, and one another transaction holds once it is free', async () => {
    const id = await subscribe('eta', '/hold/eta/ok');
    await backlog('eta', id, 3);
    await waitFor(() => (heldAt('/hold/eta/') === 3 ? true : undefined));
    const blocker = new pg.Client({ connectionString: service.databaseUrl });
    await blocker.connect();
    try {
      const blocked = held.find((one) => one.path === '/hold/eta/ok')!.id;
      await blocker.query('BEGIN');
      await blocker.query('SELECT id FROM webhook_delivery WHERE id = $1 FOR UPDATE', [blocked]);
      for (const one of held.splice(0)) one.response.writeHead(204).end();
      const states = async () =>
        (
          await database.query<{ id: string; state: string; attempts: number }>(
            `SELECT d.id, d.state, (SELECT count(*)::int FROM webhook_attempt a WHERE a.delivery_id = d.id)
                    AS attempts
               FROM webhook_delivery d WHERE d.subscription_id = $1 ORDER BY d.id`,
            [id],
          )
        ).rows;
      // The others are recorded without waiting for the held one, which waits for its row: freed at
      // once, well within the service's lock timeout (1 s), past which it would be sent again.
      const meanwhile = await waitFor(async () => {
        const rows = await states();
        return rows.filter((row) => row.state === 'delivered').length === 2 ? rows : undefined;
      });
      await blocker.query('COMMIT');
      expect(meanwhile.find((row) => row.id === blocked)).toMatchObject({
        state: 'pending',
        attempts: 0,
      });
      await waitFor(async () =>
        (await states()).every((row) => row.state === 'delivered') ? true : undefined,
      );
      expect((await states()).map((row) => row.attempts)).toEqual([1, 1, 1]);
      expect(arrivals.get('/hold/eta/ok')).toHaveLength(3);
    } finally {
      await blocker.end();
    }
    await cleanUp('eta');
  });

  it('keeps only a short excerpt of a text or JSON answer, and says no more than that a connection failed', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));

    const targets = {
      text: `${origin}/text`,
      json: `${origin}/json`,
      binary: `${origin}/binary`,
      html: `${origin}/html`,
      nul: `${origin}/nul`,
      closed: `http://127.0.0.1:${closedPort}/`,
    };
    const logs: Record<string, unknown> = {};
    for (const [name, url] of Object.entries(targets)) {
      const { id } = await service
        .client()
        .createWebhook('zeta', { url, events: ['webhook.test'] });
      await service.client().testWebhook('zeta', id);
      logs[name] = await waitFor(async () => {
        const [delivery] = (await service.client().listWebhookDeliveries('zeta', id)).content;
        return delivery?.log[0];
      });
    }
    expect(logs.text).toMatchObject({
      statusCode: 503,
      // 256 bytes, cut before the character they would split.
      responseExcerpt: `a${'é'.repeat(127)}`,
      responseContentType: 'text/plain',
    });
    expect(logs.json).toMatchObject({
      statusCode: 422,
      responseExcerpt: '{"title":"no"}',
      responseContentType: 'application/problem+json',
    });
    // PostgreSQL's text holds no NUL: kept as U+FFFD, and the delivery is recorded delivered.
    expect(logs.nul).toMatchObject({ statusCode: 200, responseExcerpt: 'ok\uFFFDdone' });
    for (const name of ['binary', 'html']) {
      expect(logs[name]).toMatchObject({
        responseExcerpt: null,
        responseContentType: null,
        error: null,
      });
    }
    expect(logs.closed).toMatchObject({
      statusCode: null,
      error: 'connection failed',
      responseExcerpt: null,
    });
  });
});
