import pg from 'pg';
import { WebhookDispatcher } from '../src/webhooks/webhook-dispatcher.js';
import { claimStatement } from '../src/webhooks/webhook-delivery.statements.js';
import { WebhookQueueStatistics } from '../src/webhooks/webhook-queue-statistics.js';
import { startTestService, type TestService } from './support/test-service.js';

type Plan = { 'Shared Hit Blocks': number; 'Shared Read Blocks': number };

/**
 * A burst of events into a delivery queue that was empty when PostgreSQL last took its statistics
 * (docs/webhooks.md, "Bursts"): the claim a connection planned then stays linear in the queue, and the
 * service takes new statistics when the queue has outgrown them. The dispatcher is stopped, so the
 * queue holds what each test puts there.
 */
describe('Webhook bursts', () => {
  let service: TestService;
  let database: pg.Client;
  let subscriptionId: string;
  let otherSubscriptionId: string;

  /** `count` pending deliveries of new events for a subscription of `tenantId`, committed together. */
  const burst = (count: number, subscription = subscriptionId, tenantId = 'demo') =>
    database.query(
      `WITH events AS (
         INSERT INTO webhook_event (id, tenant_id, type, body)
         SELECT gen_random_uuid(), $3, 'tenant.updated', '{}' FROM generate_series(1, $2::int)
         RETURNING id)
       INSERT INTO webhook_delivery (id, subscription_id, event_id)
       SELECT gen_random_uuid(), $1, id FROM events`,
      [subscription, count, tenantId],
    );
  const emptied = async () => {
    await database.query('DELETE FROM webhook_delivery; DELETE FROM webhook_event');
    await database.query('VACUUM ANALYZE webhook_delivery');
  };
  const counted = async () =>
    (
      await database.query<{ reltuples: number }>(
        `SELECT reltuples::float8 AS reltuples FROM pg_class
          WHERE oid = 'webhook_delivery_due_idx'::regclass`,
      )
    ).rows[0].reltuples;

  beforeAll(async () => {
    service = await startTestService({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
    await service.app.get(WebhookDispatcher).onApplicationShutdown();
    await service.app.get(WebhookQueueStatistics).onModuleDestroy();
    await service.client().createTenant({ id: 'demo', label: 'demo' });
    // Port 9 (discard): nothing is sent, the dispatcher is stopped.
    ({ id: subscriptionId } = await service
      .client()
      .createWebhook('demo', { url: 'http://127.0.0.1:9/events' }));
    await service.client().createTenant({ id: 'other', label: 'other' });
    ({ id: otherSubscriptionId } = await service
      .client()
      .createWebhook('other', { url: 'http://127.0.0.1:9/other' }));
    database = new pg.Client({ connectionString: service.databaseUrl });
    await database.connect();
    await database.query('ALTER TABLE webhook_delivery SET (autovacuum_enabled = off)');
  });
  afterAll(async () => {
    await database?.end();
    await service.close();
  });

  it('claims with a plan made while the queue was empty, reading each due delivery a few times at most', async () => {
    await emptied();
    // 50 subscriptions of the tenant: the claim reads each one's deliveries on its own.
    const { rows: copies } = await database.query<{ id: string }>(
      `INSERT INTO webhook_subscription
       SELECT (jsonb_populate_record(NULL::webhook_subscription,
                 to_jsonb(s) || jsonb_build_object('id', gen_random_uuid()))).*
         FROM webhook_subscription s, generate_series(1, 49) WHERE s.id = $1 RETURNING id`,
      [subscriptionId],
    );
    // The plan a connection keeps for the claim after its first calls, made now, as on a quiet day.
    await database.query('SET plan_cache_mode = force_generic_plan');
    await database.query(`PREPARE claim(int, int, int, int, int) AS ${claimStatement}`);
    await database.query('EXPLAIN EXECUTE claim(32, 20, 16, 24, 5)');
    const due = 1_000;
    for (const id of [subscriptionId, ...copies.map((copy) => copy.id)]) await burst(due / 50, id);
    // A plan that computes the candidates again for each due row reads some 30 blocks per row.
    await database.query(`SET statement_timeout = '60s'`);
    await database.query('BEGIN');
    try {
      const { rows } = await database.query<{ 'QUERY PLAN': [{ Plan: Plan }] }>(
        'EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE claim(32, 20, 16, 24, 5)',
      );
      const plan = rows[0]['QUERY PLAN'][0].Plan;
      expect(plan['Shared Hit Blocks'] + plan['Shared Read Blocks']).toBeLessThan(5 * due);
    } finally {
      await database.query('ROLLBACK');
      await database.query('DEALLOCATE claim; RESET plan_cache_mode; RESET statement_timeout');
      await emptied();
      await database.query('DELETE FROM webhook_subscription WHERE id = ANY($1)', [
        copies.map((copy) => copy.id),
      ]);
    }
  });

  it("claims another tenant's newer delivery beside a long backlog whose receiver answers at once", async () => {
    await emptied();
    await burst(616);
    await burst(1, otherSubscriptionId, 'other');
    // 15 in flight, as when a fast receiver's delivery just finished: room for one more of them.
    await database.query(
      `UPDATE webhook_delivery SET lease_until = now() + interval '20 seconds',
              next_attempt_at = now() + interval '20 seconds'
        WHERE id IN (SELECT id FROM webhook_delivery WHERE subscription_id = $1
                      ORDER BY next_attempt_at LIMIT 15)`,
      [subscriptionId],
    );
    await database.query('BEGIN');
    try {
      const { rows } = await database.query<{ subscription_id: string }>(
        claimStatement,
        [32, 20, 16, 24, 5],
      );
      const of = (id: string) => rows.filter((row) => row.subscription_id === id).length;
      expect([of(subscriptionId), of(otherSubscriptionId)]).toEqual([1, 1]);
    } finally {
      await database.query('ROLLBACK');
    }
  });

  it('takes new statistics when many more deliveries are pending than the last ones counted, once', async () => {
    const statistics = service.app.get(WebhookQueueStatistics);
    await emptied();
    await burst(500);
    expect(await statistics.check()).toBe(false);
    expect(await counted()).toBe(0);
    await burst(1_000);
    expect(await statistics.check()).toBe(true);
    expect(await counted()).toBeGreaterThan(1_000);
    expect(await statistics.check()).toBe(false);
    // More than four times what they counted: new ones again.
    await burst(4_000);
    expect(await statistics.check()).toBe(false);
    await burst(2_000);
    expect(await statistics.check()).toBe(true);
  });
});
