import { type Logger } from '@nestjs/common';
import { createDataSource, runMigrationsLocked } from '../database/data-source.js';
import { checkStoredMasterKeys } from '../secrets/master-key-check.js';
import { type Configuration } from './load-configuration.js';
import { initializeWithRetry } from './start-database.js';

/**
 * Applies pending migrations under the advisory lock, on a connection of their own with their own
 * bounds, then refuses the start when stored sealed values name a master key this instance lacks.
 */
export async function migrate(
  databaseUrl: string,
  { settings, vault, replacedLocalKey }: Configuration,
  logger: Logger,
): Promise<void> {
  const migrator = createDataSource(databaseUrl, 'migrations');
  await initializeWithRetry(migrator, logger);
  try {
    const applied = await runMigrationsLocked(migrator);
    logger.log(
      applied.length > 0
        ? `Applied migrations: ${applied.join(', ')}`
        : 'The database schema is up to date',
    );
    await checkStoredMasterKeys((sql) => migrator.query(sql), vault, {
      lostKeyIds: settings.AGENT_LOST_MASTER_KEY_IDS,
      replacedLocalKey,
    });
  } finally {
    await migrator.destroy();
  }
}
