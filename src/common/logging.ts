import { type LoggerService } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { type IncomingMessage, type ServerResponse } from 'node:http';
import { pino, type DestinationStream, type Level, type Logger as PinoLogger } from 'pino';
import { type Options } from 'pino-http';
import { type ContextualRequest } from '../auth/access.decorators.js';

export type LogLevel = Level | 'silent';

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

/** Nest's LoggerService on the root logger, for what is logged before the Nest app exists. */
export class EarlyLogger implements LoggerService {
  constructor(private readonly logger: PinoLogger) {}

  log(message: unknown, context?: string): void {
    this.write('info', message, context);
  }

  error(message: unknown, stack?: string, context?: string): void {
    this.logger.error({ context, stack }, String(message));
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
    if (typeof message === 'object' && message !== null)
      this.logger[level]({ context, ...message });
    else this.logger[level]({ context }, String(message));
  }
}

const requestIdPattern = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Request logging (pino-http): one line per request with the request id (taken from `X-Request-Id` when
 * it is sane, else made, and echoed), method, path (never the query), status, duration, tenant and user.
 */
export function requestLogging(logger: PinoLogger): Options<IncomingMessage, ServerResponse> {
  return {
    logger,
    genReqId: (request, response) => {
      const given = request.headers['x-request-id'];
      const id = typeof given === 'string' && requestIdPattern.test(given) ? given : randomUUID();
      response.setHeader('X-Request-Id', id);
      return id;
    },
    autoLogging: { ignore: (request) => (request.url ?? '').startsWith('/ctrl/health/') },
    quietReqLogger: true,
    customProps: (request) => {
      const contextual = request as unknown as ContextualRequest;
      return {
        tenant: contextual.agent?.tenantId,
        user: contextual.user?.username ?? contextual.user?.subject,
      };
    },
    serializers: {
      req: (request: { id: unknown; method: string; url: string }) => ({
        id: request.id,
        method: request.method,
        path: request.url.split('?')[0],
      }),
      res: (response: { statusCode: number }) => ({ statusCode: response.statusCode }),
    },
    customLogLevel: (_request, response, error) =>
      error !== undefined || response.statusCode >= 500
        ? 'error'
        : response.statusCode >= 400
          ? 'warn'
          : 'info',
    customSuccessMessage: (request, response) =>
      `${request.method ?? ''} ${(request.url ?? '').split('?')[0] ?? ''} ${response.statusCode}`,
    customErrorMessage: (request, response) =>
      `${request.method ?? ''} ${(request.url ?? '').split('?')[0] ?? ''} ${response.statusCode}`,
  };
}
