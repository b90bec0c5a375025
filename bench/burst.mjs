// @ts-check
/**
 * A burst against one tenant's OpenID4VCI token endpoint: BENCH_BURST (700) parallel requests with
 * well-formed but unknown pre-authorized codes from one address, while another tenant reads its DID
 * one call after another. Prints the answers by status, how long the refusals took, and the other
 * tenant's latency. The service runs with the production rate limits (RATE_LIMIT_IP_PER_MINUTE 600).
 * Usage: `npm run bench:burst`; BENCH_COMPARE=<other checkout, built> measures that one as well;
 * BENCH_COLD_POOL=1 fires the burst before the pool's connections are open.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createTenantsThroughApi, discover, tokenSource } from './http.mjs';
import { commitOf, runToTheEnd, startLocalService, temporaryDataDir } from './processes.mjs';
import { apiPath, env, log, root } from './settings.mjs';

const burst = Number(env.BENCH_BURST || 700);
const other = 'bench-burst-other';

/** Milliseconds at the given quantile of sorted values. */
const quantile = (sorted, q) =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];

/** The token answers' durations as the service logged them (warn and error lines), by status. */
function serverDurations(logFile) {
  const byStatus = {};
  for (const line of readFileSync(logFile, 'utf8').split('\n')) {
    if (!line.includes('/token')) continue;
    try {
      const entry = JSON.parse(line);
      const status = entry.res?.statusCode;
      if (status === undefined || !String(entry.req?.path).startsWith('/ctrl/oid4vci/')) continue;
      (byStatus[status] ??= []).push(entry.responseTime);
    } catch {
      // Not a request line.
    }
  }
  for (const ms of Object.values(byStatus)) ms.sort((a, b) => a - b);
  return byStatus;
}

async function measure(checkout) {
  const service = await startLocalService(temporaryDataDir('agent-bench-burst-'), checkout, {
    // The production defaults (docs/operations.md), which the other benchmarks lift.
    RATE_LIMIT_CALLER_PER_MINUTE: '6000',
    RATE_LIMIT_IP_PER_MINUTE: '600',
    RATE_LIMIT_CALLER_BURST: '200',
    RATE_LIMIT_IP_BURST: '30',
    HTTP_MAX_IN_FLIGHT_TOKEN: '8',
    HTTP_MAX_IN_FLIGHT_WALLET: '32',
    HTTP_MAX_IN_FLIGHT_API: '64',
    HTTP_MAX_CONNECTIONS: String(burst + 100),
  });
  const token = await tokenSource(
    (await discover(`${service.url}/auth/realms/agent-cloud`)).token_endpoint,
  )();
  await createTenantsThroughApi(service.url, token, [other]);
  const didUrl = `${service.url}${apiPath}/did`;
  const readDid = async () => {
    const started = performance.now();
    const response = await fetch(didUrl, {
      headers: { authorization: `Bearer ${token}`, 'x-tenant-id': other },
    });
    await response.arrayBuffer();
    return { status: response.status, ms: performance.now() - started };
  };
  await readDid();
  // A service that has been serving has its pool's connections open; BENCH_COLD_POOL measures one
  // that just started, whose burst waits for new connections as well.
  if (!env.BENCH_COLD_POOL) await Promise.all(Array.from({ length: 30 }, () => readDid()));

  let bursting = true;
  const otherCalls = [];
  const otherLoop = (async () => {
    while (bursting || otherCalls.length < 20) otherCalls.push(await readDid());
  })();
  const started = performance.now();
  const answers = await Promise.all(
    Array.from({ length: burst }, async () => {
      const sent = performance.now();
      try {
        const response = await fetch(`${service.url}/ctrl/oid4vci/acme/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            grant_type: 'urn:ietf:params:oauth:grant-type:pre-authorized_code',
            'pre-authorized_code': randomBytes(32).toString('base64url'),
          }),
        });
        const text = await response.text();
        return {
          status: response.status,
          retryAfter: response.headers.get('retry-after'),
          pool: /unavailable|timeout/i.test(text) && !/in flight/i.test(text),
          ms: performance.now() - sent,
        };
      } catch {
        // A connection the service dropped (HTTP_MAX_CONNECTIONS): counted as status 0.
        return { status: 0, retryAfter: null, pool: false, ms: performance.now() - sent };
      }
    }),
  );
  const burstMs = performance.now() - started;
  bursting = false;
  await otherLoop;
  const health = await fetch(`${service.url}/ctrl/health/ready`);
  const serverSide = serverDurations(service.logFile);

  const byStatus = {};
  for (const answer of answers) {
    const entry = (byStatus[answer.status] ??= {
      count: 0,
      withRetryAfter: 0,
      poolTimeouts: 0,
      ms: [],
    });
    entry.count++;
    if (answer.retryAfter !== null) entry.withRetryAfter++;
    if (answer.pool) entry.poolTimeouts++;
    entry.ms.push(answer.ms);
  }
  const statusLines = Object.entries(byStatus).map(([status, entry]) => {
    const sorted = entry.ms.sort((a, b) => a - b);
    return `  ${status}: ${entry.count} (Retry-After on ${entry.withRetryAfter}, pool timeouts ${entry.poolTimeouts}), answered in p50 ${quantile(sorted, 0.5).toFixed(0)} ms, max ${sorted.at(-1)?.toFixed(0)} ms`;
  });
  const otherSorted = otherCalls.map((call) => call.ms).sort((a, b) => a - b);
  const otherFailed = otherCalls.filter((call) => call.status !== 200).length;
  // Its own caller's limits (a call after another as fast as they come) answer 429: its statuses tell.
  const otherStatuses = Object.entries(
    otherCalls.reduce(
      (counts, call) => ({ ...counts, [call.status]: (counts[call.status] ?? 0) + 1 }),
      {},
    ),
  )
    .map(([status, count]) => `${status} x${count}`)
    .join(', ');
  process.stdout.write(
    [
      `${checkout} (${commitOf(checkout)}): ${burst} bogus token requests in ${burstMs.toFixed(0)} ms`,
      ...statusLines,
      `  other tenant: ${otherCalls.length} calls (${otherStatuses}), ${otherFailed} failed, p50 ${quantile(otherSorted, 0.5).toFixed(1)} ms, p99 ${quantile(otherSorted, 0.99).toFixed(1)} ms, max ${otherSorted.at(-1)?.toFixed(1)} ms`,
      ...Object.entries(serverSide).map(
        ([status, ms]) =>
          `  in the service's log, token answers ${status}: p50 ${quantile(ms, 0.5)} ms, p99 ${quantile(ms, 0.99)} ms, max ${ms.at(-1)} ms`,
      ),
      `  ready right after: ${health.status}`,
      '',
    ].join('\n'),
  );
}

await runToTheEnd(async () => {
  await measure(root);
  if (env.BENCH_COMPARE) await measure(resolve(env.BENCH_COMPARE));
  log('done');
});
