import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { existsSync } from 'node:fs';
import { ConfigError } from './config/app-config.js';
import { loadEmbeddedPostgres, startService } from './service.js';

const logger = new Logger('Main');

async function main(): Promise<void> {
  // Values already in the environment win over the file.
  if (existsSync('.env')) process.loadEnvFile('.env');
  const service = await startService();
  if (service.usesEmbeddedDatabase)
    (await loadEmbeddedPostgres()).releaseSignalsFromEmbeddedPostgres();
  const { config } = service;
  logger.log(`Listening on port ${service.config.port}`);
  logger.log(`API explorer: ${config.publicBaseUrl}/ctrl/swagger-ui/`);
  logger.log(`OpenAPI document: ${config.publicBaseUrl}/ctrl/v3/api-docs`);
  logger.log(
    `Token endpoint: ${config.authIssuerUrl}/protocol/openid-connect/token (client_id agent-client)`,
  );
  if (config.authIssuerEmbedded) {
    logger.log(
      'Development users: admin/admin (agent-admin), demo/demo (agent-user for tenant "demo")',
    );
  }

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.log(`${signal} received: finishing requests in flight, then stopping`);
    service.close().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error('Shutdown failed', error instanceof Error ? error.stack : String(error));
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    logger.fatal(`Configuration error: ${error.message}`);
  } else {
    logger.fatal(
      'The service could not start',
      error instanceof Error ? error.stack : String(error),
    );
  }
  process.exit(1);
});
