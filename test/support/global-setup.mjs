// Jest loads global setup outside its module system, so this file is plain ESM and uses the compiled
// service code (`npm test` builds first): the same data source and migrations as the app.
import { chmodSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import pg from 'pg';
import { createDataSource, runMigrationsLocked } from '../../dist/src/database/data-source.js';
import { startEmbeddedPostgres } from '../../dist/src/database/embedded-postgres.js';

/**
 * Once per run: a real PostgreSQL (embedded, or the server in TEST_DATABASE_URL), with a migrated
 * template database from which every test file copies its own database (see database.ts).
 */
export default async function globalSetup() {
  Logger.overrideLogger(['error', 'fatal']);
  let embedded;
  let directory;
  let adminUrl = process.env.TEST_DATABASE_URL;
  if (adminUrl === undefined || adminUrl === '') {
    directory = mkdtempSync(join(tmpdir(), 'agent-test-'));
    // The postgres system user (when run as root) must be able to enter the folder.
    chmodSync(directory, 0o755);
    embedded = await startEmbeddedPostgres(join(directory, 'postgres'), { log: () => undefined });
    adminUrl = embedded.urlFor('postgres');
  }
  const template = `agent_template_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${template}"`);
    await admin.query(`CREATE DATABASE "${template}"`);
  } finally {
    await admin.end();
  }
  const templateUrl = new URL(adminUrl);
  templateUrl.pathname = `/${template}`;
  const dataSource = createDataSource(templateUrl.toString(), 'migrations');
  await dataSource.initialize();
  await runMigrationsLocked(dataSource);
  await dataSource.destroy();

  globalThis.agentTestDatabase = { embedded, directory, adminUrl, template };
  process.env.AGENT_TEST_ADMIN_URL = adminUrl;
  process.env.AGENT_TEST_TEMPLATE = template;
}
