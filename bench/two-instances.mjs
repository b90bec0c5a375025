// @ts-check
/**
 * One tenant issuing through two instances on one database, as a scaled deployment does: requests/s
 * and latency of both together. With BENCH_COMPARE, the other checkout is measured the same way, in
 * turns. Usage: `npm run bench:two-instances`; BENCH_DURATION, BENCH_CONNECTIONS (per instance).
 */
import autocannon from 'autocannon';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { cryptosuites, issueRequests } from './credentials.mjs';
import { createTenantsThroughApi, discover, tokenSource } from './http.mjs';
import { cleanups, commitOf, runToTheEnd, startLocalService } from './processes.mjs';
import { env, log, root, settings } from './settings.mjs';

const tenant = 'bench-two-instances';

function temporaryDir() {
  const dir = mkdtempSync(join(tmpdir(), 'agent-bench-two-'));
  // When run as root the embedded PostgreSQL runs as `postgres`, which must enter the folder.
  chmodSync(dir, 0o755);
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** The first instance in local mode; the second on its database, master key and token issuer. */
async function startPair(checkout) {
  const firstDir = temporaryDir();
  const first = await startLocalService(firstDir, checkout);
  const issuerUrl = `${first.url}/auth/realms/agent-cloud`;
  const second = await startLocalService(temporaryDir(), checkout, {
    DATABASE_URL: first.databaseUrl,
    AGENT_MASTER_KEY: readFileSync(join(firstDir, 'master.key'), 'utf8').trim(),
    AUTH_ISSUER_URL: issuerUrl,
    PUBLIC_BASE_URL: first.url,
  });
  const token = tokenSource((await discover(issuerUrl)).token_endpoint);
  await createTenantsThroughApi(first.url, await token(), [tenant]);
  return { checkout, commit: commitOf(checkout), urls: [first.url, second.url], token };
}

/** Both instances loaded at once for `seconds`; the totals of both autocannon runs. */
async function measure(pair, cryptosuite, seconds) {
  const token = await pair.token();
  const requestFor = issueRequests(cryptosuite, [tenant]);
  const request = requestFor(0);
  const runs = await Promise.all(
    pair.urls.map((url) =>
      autocannon({
        url: `${url}${request.path}`,
        method: 'POST',
        connections: settings.connections / 2,
        duration: seconds,
        timeout: 10,
        headers: {
          ...request.headers,
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify(request.body),
      }),
    ),
  );
  const requests = runs.reduce((total, run) => total + run.requests.total, 0);
  return {
    requestsPerSecond: Math.round(requests / seconds),
    latencyP50Ms: Math.max(...runs.map((run) => run.latency.p50)),
    latencyP99Ms: Math.max(...runs.map((run) => run.latency.p99)),
    failed: runs.reduce((total, run) => total + run.non2xx + run.errors + run.timeouts, 0),
  };
}

async function main() {
  const pairs = [{ ...(await startPair(root)), process: 'service' }];
  if (env.BENCH_COMPARE) {
    pairs.push({ ...(await startPair(resolve(env.BENCH_COMPARE))), process: 'compare' });
  }
  const slices = Math.max(1, settings.slices);
  for (const cryptosuite of cryptosuites) {
    const totals = pairs.map(() => ({ requests: 0, p50: 0, p99: 0, failed: 0 }));
    for (const pair of pairs) await measure(pair, cryptosuite, settings.warmup || 1);
    for (let slice = 0; slice < slices; slice++) {
      for (const [index, pair] of pairs.entries()) {
        const part = await measure(pair, cryptosuite, settings.duration / slices);
        const total = totals[index];
        total.requests += (part.requestsPerSecond * settings.duration) / slices;
        total.p50 = Math.max(total.p50, part.latencyP50Ms);
        total.p99 = Math.max(total.p99, part.latencyP99Ms);
        total.failed += part.failed;
      }
    }
    for (const [index, pair] of pairs.entries()) {
      const total = totals[index];
      log(
        `POST /credentials/issue (${cryptosuite}) [${pair.process} ${pair.commit?.slice(0, 7) ?? pair.checkout}, two instances, one tenant]: ` +
          `${Math.round(total.requests / settings.duration)} req/s, p50 ${total.p50} ms, ` +
          `p99 ${total.p99} ms${total.failed > 0 ? `, ${total.failed} FAILED REQUESTS` : ''}`,
      );
    }
  }
}

await runToTheEnd(main);
