import { NestFactory } from '@nestjs/core';
import { type NestExpressApplication } from '@nestjs/platform-express';
import { type Server, type ServerResponse } from 'node:http';
import { DataSource } from 'typeorm';
import { AppModule } from '../app.module.js';
import { PresetPrototypesExpressAdapter } from '../common/express-adapter.js';
import { answerClientErrorsAsProblems } from '../common/problem/client-error.js';
import { requestLogging } from '../common/logging.js';
import { configureApp } from '../configure-app.js';
import { admitRequests, inFlightBoundsOf, InFlightLimits } from '../auth/in-flight.js';
import { type Clock } from '../common/clock.js';
import { observeRequests } from '../observability/http-observer.js';
import { type Metrics } from '../observability/metrics.js';
import { type Configuration } from './load-configuration.js';

/** The Nest application, not yet listening, with what the drain needs of it. */
export interface HttpApp {
  readonly app: NestExpressApplication;
  readonly server: Server;
  /** The DataSource Nest created with every feature's entities, open. */
  readonly dataSource: DataSource;
  /** Set by the drain: every answer then closes its connection. */
  readonly draining: { active: boolean };
}

/**
 * The Nest application on Node's HTTP server with its limits, its database opened, request logging and
 * metrics first, then the HTTP surface (configure-app.ts). Closes what it made when a part fails.
 */
export async function createHttpApp(
  { settings, vault, rootLogger, appLogger }: Configuration,
  databaseUrl: string,
  metrics: Metrics,
  options: { clock?: Clock },
): Promise<HttpApp> {
  const app = await NestFactory.create<NestExpressApplication>(
    AppModule.register(settings, databaseUrl, metrics, vault, { clock: options.clock }),
    new PresetPrototypesExpressAdapter({
      requestTimeout: settings.HTTP_REQUEST_TIMEOUT_MS,
      headersTimeout: settings.HTTP_HEADERS_TIMEOUT_MS,
      keepAliveTimeout: settings.HTTP_KEEP_ALIVE_TIMEOUT_MS,
      // How often the timeouts above are looked at (Node's default is 30 s).
      connectionsCheckingInterval: Math.min(1_000, settings.HTTP_HEADERS_TIMEOUT_MS),
      // A request without Host gets a problem from our own middleware instead of Node's bare 400.
      requireHostHeader: false,
    }),
    { bodyParser: false, logger: appLogger },
  );
  const dataSource = app.get(DataSource);
  try {
    await dataSource.initialize();
    app.use(requestLogging(rootLogger));
    app.use(observeRequests(settings.METRICS_PORT === 0 ? undefined : metrics));
    // Admission before any other work: a route class at its bound is refused at once (503).
    app.use(
      admitRequests(
        new InFlightLimits(inFlightBoundsOf(settings)),
        settings.METRICS_PORT === 0 ? undefined : metrics,
        settings.PUBLIC_BASE_URL,
      ),
    );
    const draining = { active: false };
    // While draining, every answer closes its connection, so that the proxy stops reusing it.
    app.use((_request: unknown, response: ServerResponse, next: () => void) => {
      if (draining.active) response.setHeader('Connection', 'close');
      next();
    });
    configureApp(app, settings);
    const server: Server = app.getHttpServer();
    server.maxConnections = settings.HTTP_MAX_CONNECTIONS;
    answerClientErrorsAsProblems(server, settings.PUBLIC_BASE_URL);
    return { app, server, dataSource, draining };
  } catch (error) {
    await app.close().catch(() => undefined);
    if (dataSource.isInitialized) await dataSource.destroy();
    throw error;
  }
}
