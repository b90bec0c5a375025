import { Logger } from '@nestjs/common';
import { type NodeSDK } from '@opentelemetry/sdk-node';
import { ConfigError } from '../config/load-settings.js';
import { startService } from './start-service.js';
import { loadEmbeddedPostgres } from './start-database.js';

const logger = new Logger('Main');

/** The service as `npm start` runs it: logs where to find it, stops on SIGINT and SIGTERM. */
export async function main(tracing: NodeSDK | undefined): Promise<void> {
  const service = await startService();
  if (service.usesEmbeddedDatabase)
    (await loadEmbeddedPostgres()).releaseSignalsFromEmbeddedPostgres();
  const { settings } = service;
  logger.log(`Listening on port ${settings.PORT}`);
  logger.log(`API explorer: ${settings.PUBLIC_BASE_URL}/ctrl/swagger-ui/`);
  logger.log(`OpenAPI document: ${settings.PUBLIC_BASE_URL}/ctrl/v3/api-docs`);
  logger.log(
    `Token endpoint: ${settings.authIssuerUrl}/protocol/openid-connect/token (client_id agent-client)`,
  );
  if (service.metricsUrl !== undefined) {
    const { port } = new URL(service.metricsUrl);
    logger.log(`Metrics (management port, not public): port ${port}, /metrics`);
  }
  if (tracing !== undefined)
    logger.log('Tracing: on, exporting spans over OTLP (OTEL_* variables)');
  if (settings.authIssuerEmbedded) {
    // The realm file's passwords come from these variables when they are set: never claim admin/admin then.
    const password = (variable: string, fallback: string) =>
      settings.environment[variable] === undefined ? fallback : `(${variable})`;
    logger.log(
      `Development users: admin/${password('AGENT_ADMIN_PASSWORD', 'admin')} (agent-admin), ` +
        `demo/${password('AGENT_DEMO_PASSWORD', 'demo')} (agent-user for tenant "demo")`,
    );
  }

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
