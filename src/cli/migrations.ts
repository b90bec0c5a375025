import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { loadSettings } from '../config/load-settings.js';
// Every feature's entities, for generate: a command is an entry point, like main.ts.
import { entities } from '../entities.js';
import {
  createDataSource,
  runMigrationsLocked,
  withMigrationLock,
} from '../database/data-source.js';
import { type EmbeddedDatabase } from '../database/embedded-postgres.js';

const usage = `Usage: npm run migration:<command>
  migration:run                 apply pending migrations
  migration:revert              revert the most recent migration
  migration:show                list migrations and whether each is applied
  migration:generate -- <Name>  write migrations/<timestamp>-<name>.ts from the entity/schema difference
Uses DATABASE_URL, or the embedded PostgreSQL under DATA_DIR when it is unset.`;

/** The migration commands, on the same DataSource (and lock) as the service. */
async function main(argv: string[]): Promise<void> {
  const [command, name] = argv;
  if (command === undefined || !['run', 'revert', 'show', 'generate'].includes(command)) {
    console.error(usage);
    process.exitCode = 2;
    return;
  }
  if (command === 'generate' && (name === undefined || !/^[A-Za-z][A-Za-z0-9]*$/.test(name))) {
    console.error(
      'migration:generate needs a PascalCase name, e.g. npm run migration:generate -- AddTenantIndex',
    );
    process.exitCode = 2;
    return;
  }
  Logger.overrideLogger(['fatal', 'error', 'warn']);
  const settings = loadSettings();
  let embedded: EmbeddedDatabase | undefined;
  if (settings.DATABASE_URL === undefined) {
    const { startEmbeddedPostgres } = await import('../database/embedded-postgres.js');
    embedded = await startEmbeddedPostgres(join(settings.DATA_DIR, 'postgres'));
  }
  const dataSource = createDataSource(
    settings.DATABASE_URL ?? embedded!.url,
    'migrations',
    entities,
  );
  try {
    await dataSource.initialize();
    switch (command) {
      case 'run': {
        const applied = await runMigrationsLocked(dataSource);
        console.log(
          applied.length === 0 ? 'No pending migrations.' : `Applied: ${applied.join(', ')}`,
        );
        break;
      }
      case 'revert':
        await withMigrationLock(dataSource, () =>
          dataSource.undoLastMigration({ transaction: 'each' }),
        );
        console.log('Reverted the most recent migration.');
        break;
      case 'show': {
        const pending = new Set(await pendingNames());
        for (const migration of dataSource.migrations) {
          const label = migration.name ?? migration.constructor.name;
          console.log(`${pending.has(label) ? '[ ]' : '[X]'} ${label}`);
        }
        break;
      }
      case 'generate':
        await generate(name ?? '');
        break;
    }
  } finally {
    if (dataSource.isInitialized) await dataSource.destroy();
    await embedded?.stop();
  }

  async function pendingNames(): Promise<string[]> {
    const rows = await dataSource
      .query<{ name: string }[]>(`SELECT name FROM migrations`)
      .catch(() => [] as { name: string }[]); // no table yet: nothing applied
    const applied = new Set(rows.map((row) => row.name));
    return dataSource.migrations
      .map((migration) => migration.name ?? migration.constructor.name)
      .filter((label) => !applied.has(label));
  }

  async function generate(migrationName: string): Promise<void> {
    const sql = await dataSource.driver.createSchemaBuilder().log();
    if (sql.upQueries.length === 0) {
      console.log('The schema matches the entities: nothing to generate.');
      return;
    }
    const timestamp = Date.now();
    const className = `${migrationName}${timestamp}`;
    const quote = (query: string) => `\`${query.replaceAll('\\', '\\\\').replaceAll('`', '\\`')}\``;
    const up = sql.upQueries.map((query) => `    await queryRunner.query(${quote(query.query)});`);
    const down = sql.downQueries
      .reverse()
      .map((query) => `    await queryRunner.query(${quote(query.query)});`);
    const file = resolve(
      'migrations',
      `${timestamp}-${migrationName.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase()}.ts`,
    );
    await writeFile(
      file,
      `import { type MigrationInterface, type QueryRunner } from 'typeorm';

export class ${className} implements MigrationInterface {
  name = '${className}';

  async up(queryRunner: QueryRunner): Promise<void> {
${up.join('\n')}
  }

  async down(queryRunner: QueryRunner): Promise<void> {
${down.join('\n')}
  }
}
`,
      { flag: 'wx' },
    );
    console.log(
      `Wrote ${file}. Add ${className} to the migrations list in src/database/data-source.ts.`,
    );
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
});
