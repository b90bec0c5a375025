// @ts-check
/** The webhook scenario: a burst of events written to the outbox at once, drained to a local receiver. */
import { createServer } from 'node:http';
import { perRequestMs, sampled } from './wallet-rows.mjs';
import { apiPath, log } from './settings.mjs';

export const webhookScenario = 'webhook burst, change to delivery';
export const burstSize = 10_000;

/**
 * Subscribes a receiver on this machine for `tenantId`, writes `burstSize` events with their deliveries
 * in one SQL statement (as that many changes committing together would), and measures until the last
 * arrives: events delivered per second, and per event the time from its commit to its arrival.
 */
export async function measureWebhooks(context, tenantId) {
  const { service, database, token } = context;
  if (database === undefined || !context.local) {
    log('webhooks: local mode with its database only; skipped');
    return;
  }
  const arrivals = new Map();
  const receiver = createServer((request, response) => {
    const id = request.headers['webhook-id'];
    request.resume();
    request.on('end', () => {
      if (typeof id === 'string' && !arrivals.has(id)) arrivals.set(id, Date.now());
      response.writeHead(204).end();
    });
  });
  await new Promise((resolve) => receiver.listen(0, '127.0.0.1', () => resolve(undefined)));
  const port = /** @type {import('node:net').AddressInfo} */ (receiver.address()).port;
  try {
    const created = await fetch(`${service.url}${apiPath}/webhooks/create`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${await token()}`,
        'x-tenant-id': tenantId,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ url: `http://127.0.0.1:${port}/events`, events: ['tenant.updated'] }),
    });
    if (created.status !== 201) throw new Error(`subscribing: ${created.status}`);
    const { id: subscriptionId } = /** @type {{ id: string }} */ (await created.json());
    log(`webhooks: ${burstSize} events at once to a receiver on port ${port}`);
    const { measured, usage } = await sampled(
      service.pid === undefined ? [] : [service.pid],
      async () => {
        const { rows } = await database.query(
          `WITH events AS (
             INSERT INTO webhook_event (id, tenant_id, type, body)
             SELECT gen_random_uuid(), $1::text, 'tenant.updated',
                    json_build_object('type', 'tenant.updated', 'timestamp', now(),
                                      'data', json_build_object('id', $1::text, 'label', 'Burst ' || n))::text
               FROM generate_series(1, $3::int) AS n
             RETURNING id)
           INSERT INTO webhook_delivery (id, subscription_id, event_id)
           SELECT gen_random_uuid(), $2, id FROM events
           RETURNING id`,
          [tenantId, subscriptionId, burstSize],
        );
        const committedAt = Date.now();
        const deadline = committedAt + 180_000;
        while (arrivals.size < burstSize && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        return { rows, committedAt };
      },
      service.postgresPid,
    );
    const { rows, committedAt } = measured;
    const latencies = rows
      .map((row) => (arrivals.get(row.id) ?? Number.NaN) - committedAt)
      .filter((latency) => Number.isFinite(latency))
      .sort((a, b) => a - b);
    const last = latencies.at(-1) ?? 0;
    const percentile = (p) =>
      latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))];
    const row = {
      name: webhookScenario,
      size: 1,
      process: 'service',
      requestsPerSecond: last > 0 ? Math.round((latencies.length / last) * 1000 * 10) / 10 : 0,
      latencyP50Ms: percentile(0.5),
      latencyP99Ms: percentile(0.99),
      latencyMaxMs: last,
      requests: latencies.length,
      non2xx: 0,
      errors: burstSize - latencies.length,
      timeouts: 0,
      peakRssMb: usage?.peakRssMb,
      cpuMsPerRequest: perRequestMs(usage?.cpuSeconds, latencies.length),
      postgresCpuMsPerRequest: perRequestMs(usage?.postgresCpuSeconds, latencies.length),
    };
    context.rows.push(row);
    log(
      `${webhookScenario}: ${latencies.length} of ${burstSize} delivered, ${row.requestsPerSecond} events/s, ` +
        `commit to arrival p50 ${row.latencyP50Ms} ms, p99 ${row.latencyP99Ms} ms, CPU ${row.cpuMsPerRequest ?? 'n/a'} ms/event (PostgreSQL ${row.postgresCpuMsPerRequest ?? 'n/a'})`,
    );
  } finally {
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver.close(() => resolve(undefined)));
  }
}
