import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import {
  getMetricsFromIterator,
  type PromData,
  type PromHistogramData,
  type PromMetrics,
} from 'prom2javascript';
import { alumniCredential, issue, verifyCredential } from './support/credentials-harness.js';
import { startTestService, type TestService } from './support/test-service.js';

/**
 * `/metrics` on the management port after real traffic, read with a Prometheus text-format parser:
 * the names and labels the operations docs promise, and counts that moved with the traffic.
 */
describe('Prometheus metrics', () => {
  let service: TestService;
  let receiver: Server;
  let metricsPort: number;

  const scrape = async (): Promise<PromMetrics> => {
    const response = await fetch(service.metricsUrl!);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    // An event-loop gauge is NaN until its first sample (prom-client writes `Nan`); the format allows
    // NaN, this parser cannot read it: such samples are left out, their HELP and TYPE stay.
    const text = (await response.text())
      .split('\n')
      .filter((line) => !/ nan$/i.test(line))
      .join('\n');
    return getMetricsFromIterator(text.split('\n')[Symbol.iterator]());
  };
  const samples = (metrics: PromMetrics, name: string) =>
    (metrics[name]?.data ?? []) as (PromData & PromHistogramData)[];
  /** The value (counter, gauge) or count (histogram) of the sample with these labels; 0 if none. */
  const valueOf = (metrics: PromMetrics, name: string, labels: Record<string, string>) => {
    const sample = samples(metrics, name).find((one) =>
      Object.entries(labels).every(([key, value]) => one.labels[key] === value),
    );
    return sample === undefined ? 0 : (sample.count ?? sample.value);
  };

  beforeAll(async () => {
    receiver = createServer((_request, response) => response.writeHead(204).end());
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    service = await startTestService({
      env: { METRICS_PORT: 'any', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' },
    });
    metricsPort = Number(new URL(service.metricsUrl ?? '').port);
  });
  afterAll(async () => {
    await service.close();
    receiver.close();
  });

  it('counts requests by route template, token checks, credentials, webhooks and the pool', async () => {
    const before = await scrape();
    const admin = service.client();
    await admin.createTenant({ id: 'acme', label: 'Acme' });
    const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/events`;
    await admin.createWebhook('acme', { url: hookUrl, events: ['credential.issued'] });
    await admin.getDid('acme');
    await admin.getDid('acme');
    expect((await service.request('/ctrl/api/v1.0/did', { as: 'anonymous' })).status).toBe(401);
    const wrongTenant = await service.request('/ctrl/api/v1.0/tenants/nobody');
    expect(wrongTenant.status).toBe(404);
    const issued = await issue(service, 'acme', alumniCredential(), {
      cryptosuite: 'eddsa-jcs-2022',
    });
    expect(issued.status).toBe(201);
    const credential = issued.body.verifiableCredential;
    expect((await verifyCredential(service, 'acme', credential)).status).toBe(200);
    const tampered = { ...credential, name: 'Changed' };
    expect((await verifyCredential(service, 'acme', tampered)).status).toBe(422);
    const revoked = await service.request('/ctrl/api/v1.0/credentials/status', {
      method: 'POST',
      headers: { 'x-tenant-id': 'acme' },
      body: {
        credentialId: credential.id,
        credentialStatus: { type: 'BitstringStatusListEntry', statusPurpose: 'revocation' },
      },
    });
    expect(revoked.status).toBe(204);
    // The delivery of credential.issued is counted once the receiver has answered; the queue gauges
    // are read from the database at most once a second, so they may show it pending a little longer.
    for (let tries = 0; tries < 100; tries++) {
      const now = await scrape();
      const delivered = valueOf(now, 'webhook_delivery_attempts_total', { outcome: 'delivered' });
      if (delivered >= 1 && valueOf(now, 'webhook_queue_depth', {}) === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const after = await scrape();
    const moved = (name: string, labels: Record<string, string>) =>
      valueOf(after, name, labels) - valueOf(before, name, labels);

    expect(after.http_server_request_duration_seconds.type).toBe('histogram');
    const routes = samples(after, 'http_server_request_duration_seconds').map(
      (sample) => sample.labels,
    );
    expect(routes).toEqual(
      expect.arrayContaining([
        { method: 'GET', route: '/ctrl/api/v1.0/did', status_class: '2xx' },
        { method: 'GET', route: '/ctrl/api/v1.0/did', status_class: '4xx' },
        { method: 'GET', route: '/ctrl/api/v1.0/tenants/:id', status_class: '4xx' },
        { method: 'POST', route: '/ctrl/api/v1.0/credentials/issue', status_class: '2xx' },
      ]),
    );
    // Templates only: never a tenant id, a subscription id or another raw path.
    for (const { route } of routes) {
      expect(route).not.toMatch(/acme|nobody|[0-9a-f]{8}-[0-9a-f]{4}/);
    }
    expect(
      moved('http_server_request_duration_seconds', {
        method: 'GET',
        route: '/ctrl/api/v1.0/did',
        status_class: '2xx',
      }),
    ).toBe(2);

    expect(moved('auth_token_checks_total', { outcome: 'refused', reason: 'missing' })).toBe(1);
    expect(moved('auth_token_checks_total', { outcome: 'remembered' })).toBeGreaterThan(0);
    // A reason only where there is one: no empty reason="" label on accepted tokens.
    expect(
      samples(after, 'auth_token_checks_total')
        .filter((sample) => sample.labels.outcome !== 'refused')
        .map((sample) => sample.labels),
    ).toEqual(
      expect.arrayContaining([{ outcome: 'verified' }, { outcome: 'remembered' }]) as unknown,
    );
    expect(
      samples(after, 'auth_token_checks_total').filter(
        (sample) => 'reason' in sample.labels && sample.labels.reason === '',
      ),
    ).toEqual([]);
    expect(valueOf(after, 'auth_token_checks_total', { outcome: 'verified' })).toBeGreaterThan(0);
    expect(valueOf(after, 'auth_jwks_fetches_total', { outcome: 'fetched' })).toBeGreaterThan(0);

    const credentialOps = 'credential_operation_duration_seconds';
    expect(after[credentialOps].type).toBe('histogram');
    expect(
      moved(credentialOps, { operation: 'issue', cryptosuite: 'eddsa-jcs-2022', outcome: 'ok' }),
    ).toBe(1);
    expect(
      moved(credentialOps, { operation: 'verify', cryptosuite: 'eddsa-jcs-2022', outcome: 'ok' }),
    ).toBe(1);
    expect(
      moved(credentialOps, {
        operation: 'verify',
        cryptosuite: 'eddsa-jcs-2022',
        outcome: 'not_verified',
      }),
    ).toBe(1);

    expect(moved('credential_status_changes_total', { change: 'revoked' })).toBe(1);
    expect(after.credential_status_changes_total.type).toBe('counter');
    // Every event is counted once, whether or not a subscription wants it.
    expect(moved('webhook_events_total', { type: 'tenant.created' })).toBe(1);
    expect(moved('webhook_events_total', { type: 'credential.issued' })).toBe(1);
    expect(moved('webhook_events_total', { type: 'credential.status.changed' })).toBe(1);
    expect(moved('webhook_delivery_attempts_total', { outcome: 'delivered' })).toBe(1);
    expect(after.webhook_queue_depth.type).toBe('gauge');
    expect(valueOf(after, 'webhook_queue_depth', {})).toBe(0);
    expect(valueOf(after, 'webhook_oldest_pending_age_seconds', {})).toBe(0);

    expect(valueOf(after, 'db_pool_connections', {})).toBeGreaterThan(0);
    expect(after.db_pool_waiting_requests.type).toBe('gauge');
    expect(after.db_pool_idle_connections.type).toBe('gauge');
    // A query PostgreSQL refused: the duplicate tenant's unique violation, SQLSTATE class 23.
    const duplicate = await service.request('/ctrl/api/v1.0/tenants/create', {
      method: 'POST',
      query: { id: 'acme', label: 'Again' },
    });
    expect(duplicate.status).toBe(409);
    expect(
      valueOf(await scrape(), 'db_query_errors_total', { kind: 'server', sqlstate_class: '23' }),
    ).toBeGreaterThan(
      valueOf(after, 'db_query_errors_total', { kind: 'server', sqlstate_class: '23' }),
    );

    expect(valueOf(after, 'process_resident_memory_bytes', {})).toBeGreaterThan(0);
    expect(after.nodejs_eventloop_lag_p99_seconds.type).toBe('gauge');
  });

  it('serves only GET /metrics on the management port, and nothing of it on the public one', async () => {
    const other = await fetch(`http://127.0.0.1:${metricsPort}/ctrl/api/v1.0/did`);
    expect(other.status).toBe(404);
    const posted = await fetch(service.metricsUrl!, { method: 'POST' });
    expect(posted.status).toBe(404);
    const onPublic = await fetch(`${service.url}/metrics`);
    expect(onPublic.status).toBe(404);
    expect(await onPublic.text()).not.toContain('http_server_request_duration_seconds');
  });
});
