import { DataSource, type DataSourceOptions } from 'typeorm';
import { InitialSchema1763800000000 } from '../../migrations/1763800000000-initial-schema.js';
import { IssuerSessions1763900000000 } from '../../migrations/1763900000000-issuer-sessions.js';
import { DidEntity } from '../did/did.entity.js';
import { IssuerCodeEntity } from '../issuer/issuer-code.entity.js';
import { IssuerSessionEntity } from '../issuer/issuer-session.entity.js';
import { TenantEntity } from '../tenants/tenant.entity.js';

/** Classes, not globs: Jest, the app and the migration CLI load exactly the same code. */
export const entities = [TenantEntity, DidEntity, IssuerSessionEntity, IssuerCodeEntity];
export const migrations = [InitialSchema1763800000000, IssuerSessions1763900000000];

/** The one DataSource definition, used by the app, the migration CLI and the tests. */
export function dataSourceOptions(url: string): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    entities,
    migrations,
    migrationsTableName: 'migrations',
    synchronize: false,
    migrationsRun: false,
    // Failed queries reach the problem filter, which logs them without their parameters (they may hold
    // sealed keys); TypeORM's own error log would print them.
    logging: ['migration'],
    extra: {
      max: 10,
      // Fail fast when the database is away so that callers get a 503 instead of hanging.
      connectionTimeoutMillis: 5000,
      application_name: 'agent-service',
    },
  };
}

export function createDataSource(url: string): DataSource {
  return new DataSource(dataSourceOptions(url));
}

/** An arbitrary constant: the key of the session-level advisory lock that serialises migrations. */
const migrationLockKey = 7_428_101_903;

/**
 * Runs `work` while holding a PostgreSQL advisory lock, so that several instances starting at once
 * migrate exactly once: the others wait, then find nothing to do.
 */
export async function withMigrationLock<T>(
  dataSource: DataSource,
  work: () => Promise<T>,
): Promise<T> {
  const lockRunner = dataSource.createQueryRunner();
  await lockRunner.connect();
  try {
    await lockRunner.query('SELECT pg_advisory_lock($1)', [migrationLockKey]);
    return await work();
  } finally {
    await lockRunner
      .query('SELECT pg_advisory_unlock($1)', [migrationLockKey])
      .catch(() => undefined);
    await lockRunner.release();
  }
}

/** Applies pending migrations under the lock; returns the names of those it applied. */
export async function runMigrationsLocked(dataSource: DataSource): Promise<string[]> {
  const applied = await withMigrationLock(dataSource, () =>
    dataSource.runMigrations({ transaction: 'each' }),
  );
  return applied.map((migration) => migration.name);
}
