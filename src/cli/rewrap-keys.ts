import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { join } from 'node:path';
// The module tree, loaded and not started: every feature's SecretsModule.forFeature registers its columns.
import '../app.module.js';
import { loadSettings } from '../config/load-settings.js';
import { createDataSource } from '../database/data-source.js';
import { type EmbeddedDatabase } from '../database/embedded-postgres.js';
import { entities } from '../entities.js';
import { openKeyVault } from '../secrets/master-keys.js';
import { rewrap } from '../secrets/rewrap.js';

const usage = `Usage: npm run keys:rewrap [-- --batch-size <rows>] [-- --skip-unknown]
  Re-seals every sealed value (private keys, webhook secrets, kept answers) under AGENT_MASTER_KEY,
  opening each with the AGENT_PREVIOUS_MASTER_KEYS key it was sealed under. Safe while the service
  runs; run it again to continue after a crash. --skip-unknown re-seals the others when some rows name a key that is not
  configured (the exit status is then still 1).
Uses DATABASE_URL, or the embedded PostgreSQL under DATA_DIR when it is unset.`;

/** The rotation command, on the same configuration and DataSource as the service and migration CLI. */
async function main(argv: string[]): Promise<void> {
  let batchSize = 500;
  let skipUnknown = false;
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index];
    if (argument === '--skip-unknown') skipUnknown = true;
    else if (argument === '--batch-size' && /^[1-9]\d{0,4}$/.test(argv[index + 1] ?? '')) {
      batchSize = Number(argv[++index]);
    } else {
      console.error(usage);
      process.exitCode = 2;
      return;
    }
  }
  Logger.overrideLogger(['fatal', 'error', 'warn']);
  const settings = loadSettings();
  const { vault } = openKeyVault();
  let embedded: EmbeddedDatabase | undefined;
  if (settings.DATABASE_URL === undefined) {
    const { startEmbeddedPostgres } = await import('../database/embedded-postgres.js');
    embedded = await startEmbeddedPostgres(join(settings.DATA_DIR, 'postgres'));
  }
  const dataSource = createDataSource(settings.DATABASE_URL ?? embedded!.url, 'app', entities);
  try {
    await dataSource.initialize();
    const result = await rewrap(dataSource, vault, {
      batchSize,
      skipUnknown,
      print: (line) => console.log(line),
    });
    // Refused, rows under unknown keys, or rows left: the operator must not drop the old key yet.
    if (!result.done) process.exitCode = 1;
  } finally {
    if (dataSource.isInitialized) await dataSource.destroy();
    await embedded?.stop();
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
});
