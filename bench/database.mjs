// @ts-check
/** The database side of a run: seeding to the large size, and the sequential scans it counts. */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { base58 } from '@scure/base';
import { log, runPrefix } from './settings.mjs';

/**
 * Fills the database up to `total` tenants in SQL: ids in generate_series, and DID rows with valid did:key
 * values over random 32-byte dummy keys (never used to sign) and a dummy sealed private key.
 */
export async function seedTenants(client, total) {
  const { rows } = await client.query('SELECT count(*)::int AS count FROM tenant');
  const missing = total - rows[0].count;
  if (missing <= 0) return 0;
  const prefix = `${runPrefix}-s`;
  const started = performance.now();
  await client.query('BEGIN');
  await client.query(
    `INSERT INTO tenant (id, label, created_at, updated_at)
     SELECT $1::text || lpad(n::text, 7, '0'), 'Seeded tenant ' || n, stamp, stamp
     FROM generate_series(1, $2::int) AS n,
          LATERAL (SELECT now() - interval '30 days' + n * interval '10 milliseconds' AS stamp) AS s`,
    [prefix, missing],
  );
  const batch = 20_000;
  const sealed = randomBytes(61);
  for (let first = 1; first <= missing; first += batch) {
    const ids = [];
    const dids = [];
    const keys = [];
    for (let n = first; n < Math.min(first + batch, missing + 1); n++) {
      const key = randomBytes(32);
      ids.push(`${prefix}${String(n).padStart(7, '0')}`);
      dids.push(`did:key:z${base58.encode(Buffer.concat([Buffer.of(0xed, 0x01), key]))}`);
      keys.push(key);
    }
    await client.query(
      `INSERT INTO tenant_did (did, tenant_id, method, key_type, public_key, private_key_sealed,
                               master_key_id, created_at)
       SELECT d.did, d.tenant_id, 'key', 'ed25519', d.public_key, $4, 'bench-dummy', t.created_at
       FROM unnest($1::text[], $2::text[], $3::bytea[]) AS d(tenant_id, did, public_key)
       JOIN tenant t ON t.id = d.tenant_id`,
      [ids, dids, keys, sealed],
    );
  }
  await client.query('COMMIT');
  // What autovacuum would do soon after a bulk load: statistics and the visibility map.
  await client.query('VACUUM (ANALYZE) tenant, tenant_did');
  // Write the load out now rather than during the next scenario (needs superuser or pg_checkpoint).
  await client.query('CHECKPOINT').catch(() => undefined);
  log(`seeded ${missing} tenants in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return missing;
}

export async function tableScans(client) {
  // Backends flush their statistics about once a second: wait for the last flush of a scenario.
  await sleep(1100);
  const { rows } = await client.query(
    `SELECT relname, seq_scan::int AS seq, coalesce(idx_scan, 0)::int AS idx
     FROM pg_stat_user_tables WHERE relname IN ('tenant', 'tenant_did')`,
  );
  return Object.fromEntries(rows.map((row) => [row.relname, { seq: row.seq, idx: row.idx }]));
}
