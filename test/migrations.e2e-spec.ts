import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { DataSource } from 'typeorm';
import {
  createDataSource,
  dataSourceOptions,
  migrations,
  runMigrationsLocked,
} from '../src/database/data-source.js';
import { entities } from '../src/entities.js';
import { type EventOutbox } from '../src/events/event-outbox.js';
import { offerClaimsPurpose } from '../src/oid4vci/offers/offer-claims.js';
import { OfferExpiry } from '../src/oid4vci/offers/offer-expiry.js';
import { OfferRepository } from '../src/oid4vci/offers/offer.repository.js';
import { KeyVault } from '../src/secrets/key-vault.js';
import { createEmptyDatabase, createTestDatabase, queryDatabase } from './support/database.js';

describe('migrations', () => {
  it('leave no difference between the entities and the schema they create', async () => {
    const dataSource = createDataSource(await createTestDatabase(), 'app', entities);
    await dataSource.initialize();
    try {
      const pending = await dataSource.driver.createSchemaBuilder().log();
      expect(pending.upQueries.map((query) => query.query)).toEqual([]);
    } finally {
      await dataSource.destroy();
    }
  });

  it('apply once when several instances start at the same time', async () => {
    const url = await createEmptyDatabase();
    const instances = Array.from({ length: 4 }, () => createDataSource(url, 'migrations'));
    await Promise.all(instances.map((instance) => instance.initialize()));
    try {
      const applied = await Promise.all(instances.map((instance) => runMigrationsLocked(instance)));
      expect(applied.flat()).toHaveLength(migrations.length);
      const rows = await queryDatabase<{ name: string }>(
        url,
        'SELECT name FROM migrations ORDER BY id',
      );
      expect(rows.map((row) => row.name)).toEqual(migrations.map((migration) => migration.name));
    } finally {
      await Promise.all(instances.map((instance) => instance.destroy()));
    }
  });

  it('revert completely and apply again', async () => {
    const url = await createEmptyDatabase();
    const dataSource = createDataSource(url);
    await dataSource.initialize();
    try {
      await runMigrationsLocked(dataSource);
      for (let step = 0; step < migrations.length; step++) await dataSource.undoLastMigration();
      const tables = await queryDatabase<{ tablename: string }>(
        url,
        `SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'migrations'`,
      );
      expect(tables).toEqual([]);
      // The functions and views owners publish (docs/architecture.md) go too.
      const routines = await queryDatabase<{ name: string }>(
        url,
        `SELECT proname AS name FROM pg_proc WHERE pronamespace = 'public'::regnamespace
         UNION ALL SELECT viewname FROM pg_views WHERE schemaname = 'public'`,
      );
      expect(routines).toEqual([]);
      expect(await runMigrationsLocked(dataSource)).toHaveLength(migrations.length);
      expect(await runMigrationsLocked(dataSource)).toEqual([]);
    } finally {
      await dataSource.destroy();
    }
  });

  it("wait for another instance's migration longer than their own lock bound", async () => {
    const url = await createEmptyDatabase();
    const options = dataSourceOptions(url, 'migrations');
    // The same options with a lock bound far shorter than the other instance's migration.
    const dataSource = new DataSource({
      ...options,
      extra: { ...(options.extra as object), lock_timeout: 200 },
    });
    const otherInstance = new pg.Client({ connectionString: url });
    await otherInstance.connect();
    await dataSource.initialize();
    try {
      await otherInstance.query('SELECT pg_advisory_lock(7428101903)');
      const migrating = runMigrationsLocked(dataSource);
      let settled = false;
      void migrating.then(
        () => (settled = true),
        () => (settled = true),
      );
      // Asking for the other's lock (bounded poll), then still asking after twice its own lock bound.
      const asking = `SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid()
          AND query LIKE 'SELECT pg_try_advisory_lock%'`;
      await waitFor(otherInstance, asking);
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(settled).toBe(false);
      await otherInstance.query('SELECT pg_advisory_unlock(7428101903)');
      expect(await migrating).toHaveLength(migrations.length);
    } finally {
      await otherInstance.end();
      await dataSource.destroy();
    }
  });

  it('run under bounds of their own, while PostgreSQL bounds every statement of the app', async () => {
    const url = await createTestDatabase();
    const settings = async (purpose: 'app' | 'migrations') => {
      const dataSource = createDataSource(url, purpose);
      await dataSource.initialize();
      try {
        const [row] = await dataSource.query<Record<string, string>[]>(
          `SELECT current_setting('statement_timeout') AS statement,
                  current_setting('lock_timeout') AS lock,
                  current_setting('idle_in_transaction_session_timeout') AS idle`,
        );
        return row;
      } finally {
        await dataSource.destroy();
      }
    };
    expect(await settings('app')).toEqual({ statement: '2s', lock: '1s', idle: '5s' });
    expect(await settings('migrations')).toEqual({ statement: '0', lock: '10s', idle: '1min' });
  });

  it('index the tables the previous release writes without holding up its writes', async () => {
    const url = await createEmptyDatabase();
    const dataSource = await migratedUpTo(url, openIndexesMigration);
    const [previousRelease, writer] = [url, url].map((u) => new pg.Client({ connectionString: u }));
    await Promise.all([previousRelease.connect(), writer.connect()]);
    try {
      // An offer write of the previous release, still open when the migration starts.
      await previousRelease.query('BEGIN');
      await previousRelease.query(`UPDATE oid4vci_offer SET status = status WHERE false`);
      const migrating = runMigrationsLocked(dataSource);
      // Asked outside the open transaction: PostgreSQL shows a transaction one view of the activity.
      await waitFor(
        writer,
        `SELECT count(*)::int AS n FROM pg_stat_activity
           WHERE query LIKE 'CREATE INDEX%' AND wait_event_type = 'Lock'`,
      );
      // Another write under the app's own lock bound gets through while the index waits: a plain
      // CREATE INDEX would queue it behind its own table lock until the bound ended it.
      await writer.query(`SET lock_timeout = '1s'`);
      await writer.query(`UPDATE oid4vci_offer SET status = status WHERE false`);
      await writer.query(`UPDATE oid4vp_request SET status = status WHERE false`);
      await previousRelease.query('COMMIT');
      expect(await migrating).toContain(openIndexesMigration);
      expect(await validIndexes(url)).toEqual(openIndexes);
    } finally {
      await Promise.all([previousRelease.end(), writer.end()]);
      await dataSource.destroy();
    }
  });

  it('build again an index that an interrupted build left invalid', async () => {
    const url = await createEmptyDatabase();
    const dataSource = await migratedUpTo(url, openIndexesMigration);
    try {
      // What a build stopped half way leaves: an index of that name that PostgreSQL does not use.
      await dataSource.query(
        `CREATE INDEX "oid4vci_offer_tenant_open_idx" ON "oid4vci_offer" ("tenant_id")`,
      );
      await dataSource.query(
        `UPDATE pg_index SET indisvalid = false
           WHERE indexrelid = 'oid4vci_offer_tenant_open_idx'::regclass`,
      );
      expect(await validIndexes(url)).toEqual([]);
      expect(await runMigrationsLocked(dataSource)).toContain(openIndexesMigration);
      expect(await validIndexes(url)).toEqual(openIndexes);
      const [definition] = await queryDatabase<{ text: string }>(
        url,
        `SELECT pg_get_indexdef('oid4vci_offer_tenant_open_idx'::regclass) AS text`,
      );
      expect(definition?.text).toContain('(tenant_id, expires_at) WHERE');
    } finally {
      await dataSource.destroy();
    }
  });

  it('keep the claims of an offer made before sealing until the expiry job seals them', async () => {
    const url = await createEmptyDatabase();
    const dataSource = createDataSource(url, 'app', entities);
    await dataSource.initialize();
    try {
      await runMigrationsLocked(dataSource);
      const names = migrations.map((migration) => migration.name);
      const before = names.indexOf('OfferClaimsSealed1795799000000');
      for (let step = before; step < names.length; step++) await dataSource.undoLastMigration();
      await dataSource.query(`INSERT INTO tenant (id, label) VALUES ('before', 'Before')`);
      await dataSource.query(
        `INSERT INTO oid4vci_offer (id, tenant_id, configuration_id, configuration, claims, status,
           by_value, secrets_sealed, pre_authorized_code_hash, reference_hash, expires_at)
         VALUES ($1, 'before', 'Badge', '{}', $2, 'offered', false, '\\x00', $3, $4,
                 now() + interval '1 hour')`,
        [offerId, JSON.stringify(claims), Buffer.alloc(32, 1), Buffer.alloc(32, 2)],
      );
      await runMigrationsLocked(dataSource);
      expect(await rowOf()).toMatchObject({ claims_unsealed: claims, claims_sealed: null });

      const vault = new KeyVault(randomBytes(32));
      const job = new OfferExpiry(
        dataSource,
        () => Date.now(),
        vault,
        new OfferRepository(dataSource),
        {} as EventOutbox,
      );
      expect(await job.sealUnsealedClaims()).toBe(1);
      const row = await rowOf();
      expect(row.whole).not.toContain('Rosalind');
      expect(row).toMatchObject({ claims_unsealed: null, claims_master_key_id: vault.masterKeyId });
      const opened = vault.open(offerId, row.claims_sealed as Buffer, offerClaimsPurpose);
      expect(JSON.parse(opened.toString('utf8'))).toEqual(claims);
    } finally {
      await dataSource.destroy();
    }

    async function rowOf() {
      const [row] = await dataSource.query<Record<string, unknown>[]>(
        `SELECT claims_unsealed, claims_sealed, claims_master_key_id, o::text AS whole
           FROM oid4vci_offer o WHERE id = $1`,
        [offerId],
      );
      return row;
    }
  });
});

const offerId = '5a0f6a54-8d0e-4f3c-9a57-1f0f1e2d3c4b';
const claims = { given_name: 'Rosalind', birthdate: '1920-07-25' };

const openIndexesMigration = 'OpenPerTenantIndexes1795800620000';
const openIndexes = ['oid4vci_offer_tenant_open_idx', 'oid4vp_request_tenant_pending_idx'];

/** A database migrated to just before `name`, with the DataSource that migrated it. */
async function migratedUpTo(url: string, name: string): Promise<DataSource> {
  const dataSource = createDataSource(url, 'migrations');
  await dataSource.initialize();
  await runMigrationsLocked(dataSource);
  const names = migrations.map((migration) => migration.name);
  for (let step = names.indexOf(name); step < names.length; step++)
    await dataSource.undoLastMigration();
  return dataSource;
}

/** Those of the per-tenant open indexes that exist and are valid. */
async function validIndexes(url: string): Promise<string[]> {
  const rows = await queryDatabase<{ name: string }>(
    url,
    `SELECT c.relname AS name FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
       WHERE c.relname = ANY($1) AND i.indisvalid ORDER BY c.relname`,
    [openIndexes],
  );
  return rows.map((row) => row.name);
}

/** Polls `sql` (one row, `n`) until it counts at least one, within a bound of tries. */
async function waitFor(client: pg.Client, sql: string): Promise<void> {
  for (let attempt = 0; attempt < 400; attempt++) {
    const { rows } = await client.query<{ n: number }>(sql);
    if ((rows[0]?.n ?? 0) > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`never true: ${sql}`);
}
