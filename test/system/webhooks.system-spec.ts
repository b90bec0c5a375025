import { randomBytes } from 'node:crypto';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo } from 'node:net';
import { createTestDatabase, queryDatabase } from '../support/database.js';
import { call, passwordGrant } from '../support/test-service.js';
import { AppProcess, eventually } from './support/app-process.js';
import { Cleanup } from './support/cleanup.js';
import { freePort } from './support/ports.js';

/**
 * Two instances on one database deliver the same outbox: in normal operation each event arrives once;
 * when one instance is killed (SIGKILL) in the middle of deliveries, the other delivers what it had
 * claimed once the lease runs out, and nothing is lost.
 */
describe('Webhook delivery by two instances', () => {
  const cleanup = new Cleanup();
  let databaseUrl: string;
  let instances: AppProcess[];
  let receiver: Server;
  /** Answered deliveries by webhook-id; while `holding`, requests wait in `held`. */
  const answered = new Map<string, number>();
  const held: { id: string; response: ServerResponse }[] = [];
  let holding = false;

  /**
   * `count` events, written as committed changes write them, spread over the subscriptions: one
   * receiver may have only so many deliveries in flight (docs/webhooks.md), and the kill below needs
   * more than that under way on both instances.
   */
  async function burst(count: number): Promise<string[]> {
    const rows = await queryDatabase<{ id: string }>(
      databaseUrl,
      `WITH subscriptions AS (
         SELECT id, tenant_id, row_number() OVER (ORDER BY id) - 1 AS k FROM webhook_subscription),
       events AS (
         INSERT INTO webhook_event (id, tenant_id, type, body)
         SELECT gen_random_uuid(), s.tenant_id, 'tenant.updated',
                json_build_object('type', 'tenant.updated', 'data', json_build_object('n', n))::text
           FROM generate_series(1, $1::int) AS n
           JOIN subscriptions s ON s.k = n % (SELECT count(*) FROM subscriptions)
         RETURNING id, tenant_id)
       INSERT INTO webhook_delivery (id, subscription_id, event_id)
       SELECT gen_random_uuid(), s.id, e.id FROM events e JOIN subscriptions s USING (tenant_id)
       RETURNING id`,
      [count],
    );
    return rows.map((row) => row.id);
  }

  const delivered = async (ids: string[]) =>
    (
      await queryDatabase<{ count: number }>(
        databaseUrl,
        `SELECT count(*)::int AS count FROM webhook_delivery WHERE id = ANY ($1) AND state = 'delivered'`,
        [ids],
      )
    )[0].count;

  beforeAll(async () => {
    receiver = createServer((request, response) => {
      const id = String(request.headers['webhook-id']);
      request.resume();
      request.on('end', () => {
        if (holding) return void held.push({ id, response });
        answered.set(id, (answered.get(id) ?? 0) + 1);
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/events`;
    databaseUrl = await createTestDatabase();
    const ports = [await freePort()];
    while (ports.length < 2) {
      const port = await freePort();
      if (!ports.includes(port)) ports.push(port);
    }
    const env = {
      PUBLIC_BASE_URL: `http://127.0.0.1:${ports[0]}`,
      DATABASE_URL: databaseUrl,
      DATA_DIR: cleanup.tempDir('webhooks-data'),
      AGENT_MASTER_KEY: randomBytes(32).toString('base64'),
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    };
    instances = await Promise.all(
      ports.map((port, index) =>
        AppProcess.start(
          { name: `instance-${index}`, port, cwd: cleanup.tempDir('webhooks-cwd'), env },
          cleanup,
          90_000,
        ),
      ),
    );
    const token = (await passwordGrant(instances[0].url, 'admin', 'admin')).access_token;
    const headers = { authorization: `Bearer ${token}` };
    for (const id of ['acme', 'globex', 'initech']) {
      const tenant = await call(instances[0].url, '/ctrl/api/v1.0/tenants/create', {
        method: 'POST',
        headers,
        query: { id, label: id },
      });
      expect(tenant.status).toBe(201);
      const subscription = await call(instances[0].url, '/ctrl/api/v1.0/webhooks/create', {
        method: 'POST',
        headers: { ...headers, 'x-tenant-id': id },
        body: { url: receiverUrl, events: ['tenant.updated'] },
      });
      expect(subscription.status).toBe(201);
    }
  }, 180_000);

  afterAll(async () => {
    for (const { response } of held) response.destroy();
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver.close(resolve));
    await cleanup.run();
  });

  it('delivers each event once in normal operation', async () => {
    const ids = await burst(200);
    await eventually(
      async () => ((await delivered(ids)) === ids.length ? true : undefined),
      60_000,
      'all 200 deliveries',
    );
    expect(ids.map((id) => answered.get(id))).toEqual(ids.map(() => 1));
    const attempts = await queryDatabase<{ count: number }>(
      databaseUrl,
      'SELECT count(*)::int AS count FROM webhook_attempt a JOIN webhook_delivery d ON d.id = a.delivery_id WHERE d.id = ANY ($1)',
      [ids],
    );
    expect(attempts[0].count).toBe(200);
  });

  it('loses nothing when an instance is killed in the middle of deliveries', async () => {
    holding = true;
    const ids = await burst(60);
    // Both instances have requests in flight to the receiver, which does not answer yet.
    await eventually(() => (held.length >= 20 ? true : undefined), 30_000, 'deliveries in flight');
    instances[0].signal('SIGKILL');
    expect((await instances[0].waitForExit(10_000)).signal).toBe('SIGKILL');
    holding = false;
    for (const { id, response } of held.splice(0)) {
      // The killed instance's connections are gone: only the survivor's requests get an answer.
      if (response.socket?.destroyed === false) answered.set(id, (answered.get(id) ?? 0) + 1);
      response.writeHead(204).end();
    }
    // The survivor's own deliveries finish now; the killed one's after their lease (20 s) runs out.
    await eventually(
      async () => ((await delivered(ids)) === ids.length ? true : undefined),
      90_000,
      'all 60 deliveries after the kill',
    );
    expect(ids.filter((id) => (answered.get(id) ?? 0) === 0)).toEqual([]);
    expect(instances[1].running).toBe(true);
  }, 150_000);
});
