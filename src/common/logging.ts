import { type LoggerService } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { type IncomingMessage, type ServerResponse } from 'node:http';
import { pino, type DestinationStream, type Level, type Logger as PinoLogger } from 'pino';
import { type ContextualRequest } from './request-context.js';
import { loggablePath, targetPath } from './request-target.js';

export type LogLevel = Level | 'silent';

export const logLevels: readonly LogLevel[] = [
  'fatal',
  'error',
  'warn',
  'info',
  'debug',
  'trace',
  'silent',
];

/** Never logged, wherever they appear: credentials, tokens and key material. */
const redactedPaths = [
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  '*.password',
  '*.client_secret',
  '*.access_token',
  '*.refresh_token',
  '*.id_token',
  '*.code',
  '*.masterKey',
  '*.privateKey',
];

/** The one structured (JSON) logger of the process; everything Nest logs goes through it too. */
export function createRootLogger(level: LogLevel, destination?: DestinationStream): PinoLogger {
  return pino(
    {
      level,
      base: { service: 'agent-service' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: redactedPaths, censor: '[redacted]' },
    },
    destination ?? pino.destination(1),
  );
}

/**
 * Nest's own start-up lines (a "Mapped {...}" line per route, one per module, "application started"
 * before the port is even open): debug, so that a start at info shows the service's own steps.
 */
const frameworkStartContexts = new Set([
  'NestFactory',
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
  'NestApplication',
]);

/**
 * Nest's LoggerService on the root logger: what Nest and our classes log (`new Logger(Class.name)`). A
 * message may be an object of fields (`{ msg, reqId, ... }`). Lines about a request name it with `reqId`
 * explicitly: the request id is not tracked across async calls, since AsyncLocalStorage's promise hooks
 * are costly on Node 20 (docs/performance.md).
 */
export class AppLogger implements LoggerService {
  constructor(private readonly logger: PinoLogger) {}

  log(message: unknown, context?: string): void {
    this.write(
      context !== undefined && frameworkStartContexts.has(context) ? 'debug' : 'info',
      message,
      context,
    );
  }

  error(message: unknown, stack?: string, context?: string): void {
    // Nest logs a port it cannot open, then rejects: the start's one-line refusal names the setting.
    if (
      context === 'NestApplication' &&
      typeof message === 'string' &&
      message.startsWith('Error: listen ')
    )
      this.logger.debug({ context }, message);
    else if (message instanceof Error)
      this.logger.error({ context, err: message }, message.message);
    else if (typeof message === 'object' && message !== null)
      this.logger.error({ context, stack, ...message });
    else this.logger.error({ context, stack }, String(message));
  }

  warn(message: unknown, context?: string): void {
    this.write('warn', message, context);
  }

  debug(message: unknown, context?: string): void {
    this.write('debug', message, context);
  }

  verbose(message: unknown, context?: string): void {
    this.write('trace', message, context);
  }

  fatal(message: unknown, context?: string): void {
    this.write('fatal', message, context);
  }

  private write(level: Level, message: unknown, context: string | undefined): void {
    // An error's message and stack are not own enumerable fields: spread, it would log nothing.
    if (message instanceof Error) this.logger[level]({ context, err: message }, message.message);
    else if (typeof message === 'object' && message !== null)
      this.logger[level]({ context, ...message });
    else this.logger[level]({ context }, String(message));
  }
}

const requestIdPattern = /^[A-Za-z0-9._:-]{1,128}$/;

/** Paths that are not logged when they succeed: the health checks an orchestrator polls. */
const quietPrefix = '/ctrl/health/';

/**
 * Request logging: one line per request with the request id (taken from `X-Request-Id` when it is sane,
 * else made, and echoed), method, path (never the query), status, duration, tenant and user; warn for 4xx
 * and for requests the client abandoned before the response was complete (`aborted`, no status) or
 * refused with 503 and Retry-After, error for other 5xx. Written by hand rather than with pino-http, which made several child loggers per request
 * (docs/performance.md). The line is built here from known fields only,
 * so it skips the root logger's redaction; everything else logged during the request keeps it.
 */
export function requestLogging(logger: PinoLogger) {
  const requestLines = logger.child({}, { redact: [] });
  return (request: IncomingMessage, response: ServerResponse, next: () => void): void => {
    const given = request.headers['x-request-id'];
    const requestId =
      typeof given === 'string' && requestIdPattern.test(given) ? given : randomUUID();
    response.setHeader('X-Request-Id', requestId);
    const contextual = request as unknown as ContextualRequest;
    contextual.agent = { ...contextual.agent, requestId };
    const started = performance.now();
    // Taken now: Express rewrites request.url inside middleware mounted on a path.
    const path = loggablePath(targetPath(request.url));
    const written = () => {
      response.removeListener('finish', written);
      response.removeListener('close', written);
      // The client went away before the response was complete, or while its body was still being
      // read (the error response to that is then written into a closed connection): whatever status
      // was set, nobody received it.
      const aborted = !response.writableFinished || request.readableAborted;
      const status = response.statusCode;
      // A 503 with Retry-After is a refusal the service chose (load shed, a dependency away, whose own
      // line says so): a burst of them is no burst of faults.
      const refused = status === 503 && response.getHeader('retry-after') !== undefined;
      const level =
        aborted || status >= 400 ? (status >= 500 && !refused ? 'error' : 'warn') : 'info';
      if (level === 'info' && path.startsWith(quietPrefix)) return;
      if (!requestLines.isLevelEnabled(level)) return;
      const caller = contextual.user;
      requestLines[level](
        {
          reqId: requestId,
          req: { id: requestId, method: request.method, path },
          ...(aborted ? { aborted: true } : { res: { statusCode: status } }),
          responseTime: Math.round(performance.now() - started),
          tenant: contextual.agent?.tenantId,
          user: caller?.username ?? caller?.subject,
        },
        `${request.method ?? ''} ${path} ${aborted ? 'aborted' : String(status)}`,
      );
    };
    response.on('finish', written);
    response.on('close', written);
    next();
  };
}

/** The id that request logging gave the request (echoed as X-Request-Id), for lines about it. */
export function requestIdOf(request: object): string | undefined {
  return (request as ContextualRequest).agent?.requestId;
}
