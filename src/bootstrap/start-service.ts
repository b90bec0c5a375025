import { Logger } from '@nestjs/common';
import { type NestExpressApplication } from '@nestjs/platform-express';
import { join } from 'node:path';
import { type DestinationStream } from 'pino';
import { type DataSource } from 'typeorm';
import { refuseOwnPort } from '../common/outbound.js';
import { type LogLevel } from '../common/logging.js';
import { type Settings } from '../config/settings.js';
import { type Clock } from '../common/clock.js';
import { Metrics } from '../observability/metrics.js';
import { createHttpApp, type HttpApp } from './create-http-app.js';
import { drain } from './drain.js';
import { checkPortFree, listen } from './listen.js';
import { loadConfiguration } from './load-configuration.js';
import { createLocalModeTenants } from './local-mode-tenants.js';
import { openMetricsPort } from './metrics-port.js';
import { publicOriginMismatch } from './start-banner.js';
import { migrate } from './migrate.js';
import { announceOutboundAllowance } from './outbound-allowance.js';
import { startDatabase, type Database } from './start-database.js';

export interface RunningService {
  readonly settings: Settings;
  readonly app: NestExpressApplication;
  readonly dataSource: DataSource;
  /** http://127.0.0.1:<port>, where this process listens. */
  readonly url: string;
  /** http://127.0.0.1:<port>/metrics, when METRICS_PORT is not 0. */
  readonly metricsUrl: string | undefined;
  /** True when this process started its own embedded PostgreSQL. */
  readonly usesEmbeddedDatabase: boolean;
  /** Stops accepting requests, lets those in flight finish, then closes the database. */
  close(): Promise<void>;
}

export interface StartOptions {
  env?: Record<string, string | undefined>;
  /** Overrides LOG_LEVEL. */
  logLevel?: LogLevel;
  /** Where log lines go (default stdout); tests capture them here. */
  logDestination?: DestinationStream;
  /** The service's clock (expiries, lockouts, lifetimes); tests move it instead of sleeping. */
  clock?: Clock;
}

/**
 * Starts the whole service: configuration, database (embedded when DATABASE_URL is unset), migrations
 * under an advisory lock, then the HTTP server. A failed start lets go of what it had opened.
 */
export async function startService(options: StartOptions = {}): Promise<RunningService> {
  const configuration = loadConfiguration(
    options.env ?? process.env,
    options.logLevel,
    options.logDestination,
  );
  const { settings } = configuration;
  const logger = new Logger('Service');
  const ownPorts: (() => void)[] = [];
  const releaseOwnPorts = () => ownPorts.splice(0).forEach((release) => release());
  let database: Database | undefined;
  let http: HttpApp | undefined;
  // One line per step, so that a slow start says where it is.
  const step = (phase: string, msg: string) => logger.log({ msg, event: 'start.step', phase });
  try {
    await checkPortFree('PORT', settings.PORT, settings.listenHost);
    if (typeof settings.METRICS_PORT === 'number')
      await checkPortFree('METRICS_PORT', settings.METRICS_PORT, settings.listenHost);
    step(
      'database',
      settings.DATABASE_URL === undefined
        ? `Starting the embedded PostgreSQL in ${join(settings.DATA_DIR, 'postgres')}`
        : 'Connecting to PostgreSQL (DATABASE_URL)',
    );
    database = await startDatabase(settings);
    if (database.embedded !== undefined) ownPorts.push(refuseOwnPort(database.embedded.port));
    const { embedded } = database;
    step('migrations', 'Checking the database schema (migrations)');
    await migrate(database.url, configuration, logger);
    step('http', 'Starting the HTTP app');
    const metrics = new Metrics();
    http = await createHttpApp(configuration, database.url, metrics, {
      clock: options.clock,
    });
    if (embedded !== undefined && settings.authIssuerEmbedded)
      await createLocalModeTenants(http.app);
    const port = await listen(http.app, http.server, settings);
    ownPorts.push(refuseOwnPort(port));
    step('listening', `Listening on ${settings.listenHost ?? 'every interface'}, port ${port}`);
    const mismatch = publicOriginMismatch(settings, port);
    if (mismatch !== undefined) logger.warn({ msg: mismatch, event: 'start.public-origin' });
    const management = await openMetricsPort(settings, metrics);
    if (management !== undefined) ownPorts.push(refuseOwnPort(management.port));
    announceOutboundAllowance(settings, logger, [port, management?.port, embedded?.port]);
    const idleWaitMs = settings.SHUTDOWN_IDLE_WAIT_MS;
    const holdings = { http, management, embedded, releaseOwnPorts, idleWaitMs };
    return {
      settings,
      app: http.app,
      dataSource: http.dataSource,
      url: `http://127.0.0.1:${port}`,
      metricsUrl: management && `http://127.0.0.1:${management.port}/metrics`,
      usesEmbeddedDatabase: embedded !== undefined,
      close: () => drain(holdings),
    };
  } catch (error) {
    await http?.app.close().catch(() => undefined);
    if (http?.dataSource.isInitialized) await http.dataSource.destroy();
    await database?.embedded?.stop();
    releaseOwnPorts();
    throw error;
  }
}
