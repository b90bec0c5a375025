import { createDataSource, migrations, runMigrationsLocked } from '../src/database/data-source.js';
import { createEmptyDatabase, createTestDatabase, queryDatabase } from './support/database.js';

describe('migrations', () => {
  it('leave no difference between the entities and the schema they create', async () => {
    const dataSource = createDataSource(await createTestDatabase());
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
    const instances = Array.from({ length: 4 }, () => createDataSource(url));
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
      expect(await runMigrationsLocked(dataSource)).toHaveLength(migrations.length);
      expect(await runMigrationsLocked(dataSource)).toEqual([]);
    } finally {
      await dataSource.destroy();
    }
  });
});
