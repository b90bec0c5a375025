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
  prepareCredentialRequests,
  readyToRequest,
  credentialRequest,
  proof,
  call,
} from './oid4vci.mjs';
import { measureSentOnce, measuredInTurns, row, serviceTarget } from './wallet-rows.mjs';
import { log, runPrefix, settings } from './settings.mjs';

/** Requests per row and slice: each needs its own offer, token and nonce. */
const preparedRequests = () => Math.min(900, Math.max(200, Math.round(settings.duration * 150)));

/** The row of `tenants` tenants issuing at once (its size is that count). */
export const tenantsAtOnceScenario = `${credentialEndpointScenario}, tenants at once`;
export const issuedBeforeScenario = () =>
  `${credentialEndpointScenario}, ${settings.scaleCredentials.toLocaleString('en')} issued before`;
export const tenantCounts = [1, 10, 100];
/**
 * Beside the seeded tenant, in turns, after the seeding: a tenant that issued only the benchmark's own
 * few thousand, in the same grown tables, so that the seeded tenant's own growth shows without the
 * machine's drift; this tenant against the one-tenant row before the seeding shows the drift and the
 * tables' growth together.
 */
export const freshBesideScenario = () =>
  `${issuedBeforeScenario()}, in turns: a tenant without them`;

/** The rows of `sets` (tenant lists) in turns (a tenant keeps at most 1,000 open offers). */
function inTurns(at, apiToken, sets, count) {
  return measuredInTurns(
    sets,
    count,
    (tenants, size) => prepareCredentialRequests(at.url, apiToken, tenants, size),
    (_tenants, requests) => measureSentOnce(at, apiToken, requests),
  );
}

/**
 * Inserts `count` copies of the first row of `table` that `where` (a condition and an order) selects,
 * `overrides` the expressions (over the row `c` and the number `n`) of the columns that must differ; the
 * columns are read from the catalogue, so that a column a later migration adds is copied too.
 * @param {import('pg').Client} database
 * @param {string} table
 * @param {string} where
 * @param {Record<string, string>} overrides
 * @param {unknown[]} parameters $1 the tenant, $2 the count, $3 a prefix unique to this run
 */
async function cloneRows(database, table, where, overrides, parameters) {
  const { rows } = await database.query(
    `SELECT column_name FROM information_schema.columns
     WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`,
    [table],
  );
  const columns = rows.map((column) => /** @type {string} */ (column.column_name));
  const quoted = (name) => `"${name.replaceAll('"', '""')}"`;
  const inserted = await database.query(
    `INSERT INTO ${quoted(table)} (${columns.map(quoted).join(', ')})
     SELECT ${columns.map((name) => overrides[name] ?? `c.${quoted(name)}`).join(', ')}
     FROM (SELECT * FROM ${quoted(table)} WHERE ${where} LIMIT 1) AS c,
          generate_series(1, $2::int) AS n`,
    parameters,
  );
  return inserted.rowCount ?? 0;
}

/**
 * Clones one issued credential of `tenantId` and its redeemed offer `count` times in SQL, with fresh
 * ids and hashes, as `count` earlier issuances would have left them; then VACUUM ANALYZE.
 */
async function seedIssued(database, tenantId, count) {
  const started = performance.now();
  const parameters = [tenantId, count, `${runPrefix}-i`];
  const earlier = (column) => `c.${column} - n * interval '10 milliseconds'`;
  const hash = (kind) => `sha256(convert_to($3::text || '${kind}' || n, 'UTF8'))`;
  await database.query('BEGIN');
  const issued = await cloneRows(
    database,
    'issued_credential',
    `tenant_id = $1 AND format = 'dc+sd-jwt' ORDER BY created_at`,
    { id: `'urn:uuid:' || $3::text || n`, created_at: earlier('created_at') },
    parameters,
  );
  const offers = await cloneRows(
    database,
    'oid4vci_offer',
    `tenant_id = $1 AND cardinality(credential_ids) > 0 ORDER BY updated_at DESC`,
    {
      id: `md5($3::text || n)::uuid`,
      pre_authorized_code_hash: hash('code'),
      reference_hash: hash('reference'),
      access_token_hash: hash('token'),
      notification_id: `CASE WHEN c.notification_id IS NULL THEN NULL ELSE $3::text || n END`,
      credential_ids: `ARRAY['urn:uuid:' || $3::text || n]`,
      created_at: earlier('created_at'),
      updated_at: earlier('updated_at'),
    },
    parameters,
  );
  await database.query('COMMIT');
  const inserted = performance.now();
  // What autovacuum would do soon after a bulk load: statistics and the visibility map.
  await database.query('VACUUM (ANALYZE) issued_credential, oid4vci_offer');
  await database.query('CHECKPOINT').catch(() => undefined);
  const seconds = (from) => ((performance.now() - from) / 1000).toFixed(1);
  log(
    `seeded ${issued} issued credentials and ${offers} redeemed offers for ` +
      `${tenantId} in ${seconds(started)} s (vacuum and checkpoint ${seconds(inserted)} s)`,
  );
}

export async function measureWalletScaling(context) {
  const at = serviceTarget(context);
  const apiToken = await context.token();
  // Tenants of their own: each keeps at most 1,000 open offers, and the rows prepare up to 900.
  const ids = Array.from(
    // One more than the rows': the fresh tenant beside the seeded one.
    { length: tenantCounts.reduce((total, count) => total + count, 0) + 1 },
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
  let next = 0;
  const sets = tenantCounts.map((tenants) => ids.slice(next, (next += tenants)));
  log(
    `wallet scaling: ${tenantCounts.join(', ')} tenant(s) in turns, ${settings.slices} slice(s) of ` +
      `${count} requests each, prepared (offer, token, nonce, proof) before each slice`,
  );
  const measured = await inTurns(at, apiToken, sets, count);
  for (const [index, tenants] of sets.entries()) {
    const one = measured[index];
    row(
      context,
      tenantsAtOnceScenario,
      at.process,
      one.measured,
      one.usage,
      one.otherCpuPercent,
      tenants.length,
    );
  }
  if (context.database === undefined || settings.scaleCredentials === 0) {
    log('wallet scaling: no database or BENCH_SCALE_CREDENTIALS=0: no row with issued credentials');
    return;
  }
  const tenant = sets[0][0];
  await seedIssued(context.database, tenant, settings.scaleCredentials);
  const fresh = ids[ids.length - 1];
  const [after, beside] = await inTurns(at, apiToken, [[tenant], [fresh]], count);
  row(
    context,
    issuedBeforeScenario(),
    at.process,
    after.measured,
    after.usage,
    after.otherCpuPercent,
  );
  row(
    context,
    freshBesideScenario(),
    at.process,
    beside.measured,
    beside.usage,
    beside.otherCpuPercent,
  );
}
