import { Logger } from '@nestjs/common';
import { type NodeSDK } from '@opentelemetry/sdk-node';
import { ConfigError } from '../config/load-settings.js';
import { localModeBanner, startRecord } from './start-banner.js';
import { startService } from './start-service.js';
import { loadEmbeddedPostgres } from './start-database.js';

const logger = new Logger('Main');

/** The service as `npm start` runs it: logs where to find it, stops on SIGINT and SIGTERM. */
export async function main(tracing: NodeSDK | undefined): Promise<void> {
  const service = await startService();
  if (service.usesEmbeddedDatabase)
    (await loadEmbeddedPostgres()).releaseSignalsFromEmbeddedPostgres();
  const started = {
    settings: service.settings,
    port: Number(new URL(service.url).port),
    metricsPort:
      service.metricsUrl === undefined ? undefined : Number(new URL(service.metricsUrl).port),
    tracing: tracing !== undefined,
  };
  logger.log(startRecord(started));
  // Local mode is someone at a terminal: the links in human lines, last, on stderr (stdout stays JSON).
  if (service.settings.localMode) process.stderr.write(localModeBanner(started));

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.log(`${signal} received: finishing requests in flight, then stopping`);
    service
      .close()
      .then(() => tracing?.shutdown())
      .then(
        () => {
          // The last line: an operator reading the log knows the stop completed, not crashed half-way.
          logger.log({
            msg: `Stopped (${signal}): requests finished, database closed`,
            event: 'service.stopped',
          });
          process.exit(0);
        },
        (error: unknown) => {
          logger.error('Shutdown failed', error instanceof Error ? error.stack : String(error));
          process.exit(1);
        },
      );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

/** Start-up failures: a configuration error in one line, anything else with its stack. */
export function exitOnStartFailure(error: unknown): never {
  if (error instanceof ConfigError) {
    logger.fatal(`Configuration error: ${error.message}`);
  } else {
    logger.fatal(
      'The service could not start',
      error instanceof Error ? error.stack : String(error),
    );
  }
  process.exit(1);
}
