// @ts-check
/**
 * One tenant issuing through two instances on one database, as a scaled deployment does: requests/s
 * and latency of both together. With BENCH_COMPARE, the other checkout is measured the same way, in
 * turns. Usage: `npm run bench:two-instances`; BENCH_DURATION, BENCH_CONNECTIONS (per instance).
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { cryptosuites, issueRequests } from './credentials.mjs';
import { createTenantsThroughApi, discover, tokenSource } from './http.mjs';
import { load } from './load.mjs';
import { commitOf, runToTheEnd, startLocalService, temporaryDataDir } from './processes.mjs';
import { env, log, root, settings } from './settings.mjs';

const tenant = 'bench-two-instances';

/** The first instance in local mode; the second on its database, master key and token issuer. */
async function startPair(checkout) {
  const firstDir = temporaryDataDir('agent-bench-two-');
  const first = await startLocalService(firstDir, checkout);
  const issuerUrl = `${first.url}/auth/realms/agent-cloud`;
  const second = await startLocalService(temporaryDataDir('agent-bench-two-'), checkout, {
    DATABASE_URL: first.databaseUrl,
    AGENT_MASTER_KEY: readFileSync(join(firstDir, 'master.key'), 'utf8').trim(),
    AUTH_ISSUER_URL: issuerUrl,
    PUBLIC_BASE_URL: first.url,
  });
  const token = tokenSource((await discover(issuerUrl)).token_endpoint);
  await createTenantsThroughApi(first.url, await token(), [tenant]);
  return { checkout, commit: commitOf(checkout), urls: [first.url, second.url], token };
}

/** Both instances loaded at once for `seconds`, half the connections each; both runs together. */
async function measure(pair, cryptosuite, seconds) {
  const token = await pair.token();
  const requestFor = issueRequests(cryptosuite, [tenant]);
  const runs = await Promise.all(
    pair.urls.map((url) =>
      load(url, token, seconds, requestFor, undefined, settings.connections / 2),
    ),
  );
  const sum = (field) => runs.reduce((total, run) => total + run[field], 0);
  return {
    requests: sum('requests'),
    latencyP50Ms: Math.max(...runs.map((run) => run.latencyP50Ms)),
    latencyP99Ms: Math.max(...runs.map((run) => run.latencyP99Ms)),
    failed: sum('non2xx') + sum('errors') + sum('timeouts'),
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
        total.requests += part.requests;
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
