import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { openExchange, type OpenExchange } from './support/raw-socket.js';
import {
  call,
  startTestService,
  type ApiResponse,
  type TestService,
} from './support/test-service.js';

const tokenPath = '/ctrl/oid4vci/acme/token';
const preAuthorizedGrant = 'urn:ietf:params:oauth:grant-type:pre-authorized_code';
const tokenBound = 8;

/** A well-formed pre-authorized code that no offer has: it costs the service one lookup. */
const bogusTokenRequest = (url: string) =>
  call(url, tokenPath, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: preAuthorizedGrant,
      'pre-authorized_code': randomBytes(32).toString('base64url'),
    }).toString(),
  });

/** The sample of a metric with these labels (Prometheus text format), 0 when absent. */
async function metric(service: TestService, name: string, labels: string): Promise<number> {
  const text = await (await fetch(service.metricsUrl!)).text();
  const sample = labels === '' ? `${name} ` : `${name}{${labels}} `;
  const line = text.split('\n').find((candidate) => candidate.startsWith(sample));
  return line === undefined ? 0 : Number(line.split(' ').at(-1));
}

/** Waits (bounded) until the metric reads `expected`: the server sees sockets on its own time. */
async function untilMetric(service: TestService, name: string, labels: string, expected: number) {
  for (let attempt = 0; attempt < 200; attempt++) {
    if ((await metric(service, name, labels)) === expected) return;
    await sleep(50);
  }
  expect(await metric(service, name, labels)).toBe(expected);
}

/**
 * Admission before work, over real HTTP and PostgreSQL: bursts from one address are refused at once
 * (429 from the per-second limit, 503 from the bound on requests in flight), each with Retry-After,
 * never after waiting for the database pool; another tenant's calls go on; probes are never shed.
 */
describe('Admission control', () => {
  let service: TestService;
  let otherToken: string;

  beforeAll(async () => {
    service = await startTestService({
      env: {
        // The production limits, with the token endpoints' bound below the pool's size.
        RATE_LIMIT_IP_PER_MINUTE: '600',
        RATE_LIMIT_IP_BURST: '30',
        RATE_LIMIT_CALLER_PER_MINUTE: '6000',
        RATE_LIMIT_CALLER_BURST: '200',
        HTTP_MAX_IN_FLIGHT_TOKEN: String(tokenBound),
        HTTP_MAX_IN_FLIGHT_WALLET: '32',
        HTTP_MAX_IN_FLIGHT_API: '64',
        DATABASE_POOL_SIZE: '10',
        DATABASE_POOL_ACQUIRE_TIMEOUT_MS: '1500',
        HTTP_MAX_CONNECTIONS: '3000',
        METRICS_PORT: 'any',
      },
    });
    otherToken = await service.tokenFor('admin');
    const created = await service.request('/ctrl/api/v1.0/tenants/create', {
      method: 'POST',
      query: { id: 'other', label: 'Other' },
    });
    expect(created.status).toBe(201);
    // A service that has served has its pool's connections open (the pool keeps them): the burst then
    // waits for none to be made, which on a loaded machine can outlast the pool's 1.5 s wait.
    for (let round = 0; round < 20; round++) {
      const open = await metric(service, 'db_pool_connections', '');
      if (open >= 9) break;
      await Promise.all(
        Array.from({ length: 20 }, () =>
          service.request('/ctrl/api/v1.0/did', {
            token: otherToken,
            headers: { 'x-tenant-id': 'other' },
          }),
        ),
      );
    }
    expect(await metric(service, 'db_pool_connections', '')).toBeGreaterThanOrEqual(9);
  });
  afterAll(() => service.close());

  it('holds requests in flight to the bound, answers 503 with Retry-After past it, and frees a slot when a client goes away', async () => {
    // Requests whose body never comes hold their slots (the form is read after the guards).
    const head = `POST ${tokenPath} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\n`;
    const hanging: OpenExchange[] = [];
    for (let i = 0; i < tokenBound; i++) hanging.push(openExchange(service.url, head));
    await untilMetric(service, 'agent_requests_in_flight', 'class="token"', tokenBound);

    const refused = await bogusTokenRequest(service.url);
    expectShed(refused);
    expect(refused.status).toBe(503);
    // Other classes and the probes have their own room.
    expect((await call(service.url, '/ctrl/health/ready')).status).toBe(200);
    const other = await service.request('/ctrl/api/v1.0/did', {
      token: otherToken,
      headers: { 'x-tenant-id': 'other' },
    });
    expect(other.status).toBe(200);

    for (const exchange of hanging) exchange.socket.destroy();
    await untilMetric(service, 'agent_requests_in_flight', 'class="token"', 0);
    const admitted = await bogusTokenRequest(service.url);
    expect(admitted.status).toBe(400);
    expect(admitted.body).toMatchObject({ error: 'invalid_grant' });
    // Let the address's second pass before the burst.
    await sleep(1_100);
  });

  it('sheds a burst of 1,000 token requests from one address at once while another tenant is served', async () => {
    const shedBefore =
      (await metric(service, 'agent_requests_shed_total', 'class="token",reason="in_flight"')) +
      (await metric(service, 'agent_requests_shed_total', 'class="token",reason="rate_limited"'));
    let bursting = true;
    const otherCalls: { status: number; ms: number }[] = [];
    const otherTenant = (async () => {
      while (bursting || otherCalls.length < 10) {
        const started = performance.now();
        const answer = await service.request('/ctrl/api/v1.0/did', {
          token: otherToken,
          headers: { 'x-tenant-id': 'other' },
        });
        otherCalls.push({ status: answer.status, ms: performance.now() - started });
        // At most 100 a second, half the caller's burst of 200 in any second, however fast they come back.
        await sleep(10);
      }
    })();
    const answers = await Promise.all(
      Array.from({ length: 1_000 }, () => bogusTokenRequest(service.url)),
    );
    bursting = false;
    await otherTenant;

    const admitted = answers.filter((answer) => answer.status === 400);
    const shed = answers.filter((answer) => answer.status !== 400);
    for (const answer of admitted) expect(answer.body).toMatchObject({ error: 'invalid_grant' });
    for (const answer of shed) expectShed(answer);
    // At most the minute's allowance got through, whatever the machine's speed.
    expect(admitted.length).toBeGreaterThan(0);
    expect(admitted.length).toBeLessThanOrEqual(600);
    // Every refusal was counted as shed, and every slot was given back.
    const shedAfter =
      (await metric(service, 'agent_requests_shed_total', 'class="token",reason="in_flight"')) +
      (await metric(service, 'agent_requests_shed_total', 'class="token",reason="rate_limited"'));
    expect(shedAfter - shedBefore).toBe(shed.length);
    await untilMetric(service, 'agent_requests_in_flight', 'class="token"', 0);

    expect(otherCalls.map((answer) => answer.status)).toEqual(otherCalls.map(() => 200));
    expect((await call(service.url, '/ctrl/health/ready')).status).toBe(200);
    expect((await call(service.url, '/ctrl/health/live')).status).toBe(200);
  });
});

/** A refusal before any work: 429 or 503 with Retry-After, never a wait for the database pool. */
function expectShed(answer: ApiResponse): void {
  expect([429, 503]).toContain(answer.status);
  expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  const problem = answer.body as { code?: string; detail?: string };
  expect(problem.code).toBe(answer.status === 429 ? 'RATE_LIMITED' : 'SERVICE_UNAVAILABLE');
  // The pool's own 503 says the database is unavailable; admission's names the bound.
  if (answer.status === 503) expect(problem.detail).toMatch(/requests are in flight/);
}
