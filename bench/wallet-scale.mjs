// @ts-check
/**
 * The credential endpoint as tenants and issued credentials grow: 1, 10 and 100 tenants issuing at
 * once, measured in turns, then one tenant with issued credentials seeded in SQL beforehand; each
 * against the one-tenant row (docs/performance.md).
 */
import { createTenantsThroughApi } from './http.mjs';
import {
  credentialEndpointScenario,
  ensureConfiguration,
  measureCredentialEndpoint,
  prepareCredentialRequests,
  preparedRequests,
  readyToRequest,
  credentialRequest,
  proof,
  call,
  row,
  serviceTarget,
} from './oid4vci.mjs';
import { log, runPrefix, settings } from './settings.mjs';

/** The row of `tenants` tenants issuing at once (its size is that count). */
export const tenantsAtOnceScenario = `${credentialEndpointScenario}, tenants at once`;
export const issuedBeforeScenario = () =>
  `${credentialEndpointScenario}, ${settings.scaleCredentials.toLocaleString('en')} issued before`;
export const tenantCounts = [1, 10, 100];

/** Sums the slices of one row: throughput over all; p50, p99 and peak RSS the highest. */
function combine(parts) {
  const sum = (pick) => parts.reduce((total, part) => total + (pick(part) ?? 0), 0);
  const highest = (pick) => Math.max(...parts.map((part) => pick(part) ?? 0));
  const known = (pick) => parts.every((part) => pick(part) !== undefined);
  return {
    measured: {
      requests: sum((part) => part.measured.requests),
      seconds: sum((part) => part.measured.seconds),
      latencyP50Ms: highest((part) => part.measured.latencyP50Ms),
      latencyP99Ms: highest((part) => part.measured.latencyP99Ms),
      non2xx: sum((part) => part.measured.non2xx),
      errors: sum((part) => part.measured.errors),
      timeouts: sum((part) => part.measured.timeouts),
    },
    usage: known((part) => part.usage)
      ? {
          peakRssMb: highest((part) => part.usage.peakRssMb),
          cpuSeconds: sum((part) => part.usage.cpuSeconds),
          postgresCpuSeconds: known((part) => part.usage.postgresCpuSeconds)
            ? sum((part) => part.usage.postgresCpuSeconds)
            : undefined,
        }
      : undefined,
    otherCpuPercent: highest((part) => part.otherCpuPercent),
  };
}

/**
 * Each of `sets` (prepared requests) sent once: a few unmeasured first, then in `slices` turns, so that
 * the machine's drift skews them alike.
 */
async function inTurns(at, apiToken, sets, slices) {
  const warm =
    settings.warmup > 0
      ? Math.min(2 * settings.connections, ...sets.map((set) => set.length / 4))
      : 0;
  for (const set of sets) await measureCredentialEndpoint(at, apiToken, set.slice(0, warm));
  const parts = sets.map(() => /** @type {any[]} */ ([]));
  const per = Math.floor((Math.min(...sets.map((set) => set.length)) - warm) / slices);
  for (let slice = 0; slice < slices; slice++) {
    for (const [index, set] of sets.entries()) {
      const start = warm + slice * per;
      parts[index].push(
        await measureCredentialEndpoint(at, apiToken, set.slice(start, start + per)),
      );
    }
  }
  return parts.map(combine);
}

/**
 * Clones one issued credential of `tenantId` and its redeemed offer `count` times in SQL, with fresh
 * keys and hashes, as `count` earlier issuances would have left them; then VACUUM ANALYZE.
 */
async function seedIssued(database, tenantId, count) {
  const started = performance.now();
  const seed = `${runPrefix}-i`;
  await database.query('BEGIN');
  const issued = await database.query(
    `INSERT INTO issued_credential
     SELECT (jsonb_populate_record(NULL::issued_credential, to_jsonb(c) || jsonb_build_object(
               'id', $3::text || n, 'created_at', c.created_at - n * interval '10 milliseconds'))).*
     FROM (SELECT * FROM issued_credential WHERE tenant_id = $1 AND format = 'dc+sd-jwt'
           ORDER BY created_at LIMIT 1) AS c,
          generate_series(1, $2::int) AS n`,
    [tenantId, count, `urn:uuid:${seed}-`],
  );
  const hash = (kind) =>
    `'\\x' || encode(sha256(convert_to($3::text || '${kind}' || n, 'UTF8')), 'hex')`;
  const offers = await database.query(
    `INSERT INTO oid4vci_offer
     SELECT (jsonb_populate_record(NULL::oid4vci_offer, to_jsonb(o) || jsonb_build_object(
               'id', md5($3::text || n)::uuid,
               'pre_authorized_code_hash', ${hash('code')},
               'reference_hash', ${hash('reference')},
               'access_token_hash', ${hash('token')},
               'notification_id', CASE WHEN o.notification_id IS NULL THEN NULL ELSE $3::text || n END,
               'credential_ids', ARRAY[$3::text || n],
               'created_at', o.created_at - n * interval '10 milliseconds',
               'updated_at', o.updated_at - n * interval '10 milliseconds'))).*
     FROM (SELECT * FROM oid4vci_offer WHERE tenant_id = $1 AND cardinality(credential_ids) > 0
           ORDER BY updated_at DESC LIMIT 1) AS o,
          generate_series(1, $2::int) AS n`,
    [tenantId, count, seed],
  );
  await database.query('COMMIT');
  await database.query('VACUUM (ANALYZE) issued_credential, oid4vci_offer');
  await database.query('CHECKPOINT').catch(() => undefined);
  log(
    `seeded ${issued.rowCount} issued credentials and ${offers.rowCount} redeemed offers for ` +
      `${tenantId} in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
}

export async function measureWalletScaling(context) {
  const at = serviceTarget(context);
  const apiToken = await context.token();
  // Tenants of their own: each keeps at most 1,000 open offers, and the rows prepare up to 900.
  const ids = Array.from(
    { length: tenantCounts.reduce((total, count) => total + count, 0) },
    (_, n) => `${runPrefix}-w${String(n).padStart(4, '0')}`,
  );
  log(`wallet scaling: ${ids.length} tenants, a configuration and a first credential each`);
  await createTenantsThroughApi(at.url, apiToken, ids);
  // The first issue certifies the tenant's key (HAIP 1.0 x5c): done here, not in the measured rows.
  for (let start = 0; start < ids.length; start += 8) {
    await Promise.all(
      ids.slice(start, start + 8).map(async (id) => {
        await ensureConfiguration(at.url, apiToken, id);
        const ready = await readyToRequest(at.url, apiToken, id);
        const request = credentialRequest(ready, await proof(ready.audience, ready.nonce));
        await call(at.url, request.path, { token: request.token, json: request.body });
      }),
    );
  }
  const count = preparedRequests();
  const sets = [];
  let next = 0;
  for (const tenants of tenantCounts) {
    const own = ids.slice(next, next + tenants);
    next += tenants;
    log(`wallet scaling: preparing ${count} credential requests over ${tenants} tenant(s)`);
    sets.push({
      tenants,
      own,
      requests: await prepareCredentialRequests(at.url, apiToken, own, count),
    });
  }
  const measured = await inTurns(
    at,
    apiToken,
    sets.map((set) => set.requests),
    settings.slices,
  );
  for (const [index, set] of sets.entries()) {
    const one = measured[index];
    row(
      context,
      tenantsAtOnceScenario,
      at.process,
      one.measured,
      one.usage,
      one.otherCpuPercent,
      set.tenants,
    );
  }
  if (context.database === undefined || settings.scaleCredentials === 0) {
    log('wallet scaling: no database or BENCH_SCALE_CREDENTIALS=0: no row with issued credentials');
    return;
  }
  const tenant = sets[0].own[0];
  await seedIssued(context.database, tenant, settings.scaleCredentials);
  const requests = await prepareCredentialRequests(at.url, apiToken, [tenant], count);
  const [after] = await inTurns(at, apiToken, [requests], settings.slices);
  row(
    context,
    issuedBeforeScenario(),
    at.process,
    after.measured,
    after.usage,
    after.otherCpuPercent,
  );
}
