import {
  Catch,
  HttpException,
  Logger,
  type ArgumentsHost,
  type ExceptionFilter,
} from '@nestjs/common';
import { type Request, type Response } from 'express';
import { requestIdOf } from '../logging.js';
import { DomainException } from './domain.exception.js';
import { type ErrorCode } from './error-codes.js';
import { sendProblem } from './problem-response.js';
import { type RouteTable } from './route-table.js';

/** Connection-level failures of PostgreSQL or its driver: the database is away, not the request wrong. */
const databaseUnavailableCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EPIPE',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '53300', // too_many_connections
  '57014', // query_canceled: the server's statement_timeout
  '55P03', // lock_not_available: the server's lock_timeout
  '40P01', // deadlock_detected
  '40001', // serialization_failure
]);

function isDatabaseUnavailable(error: unknown): boolean {
  // Duck-typed rather than instanceof: driver errors may come from another realm.
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown }).code;
  const driverError = (error as { driverError?: unknown }).driverError;
  if (typeof code === 'string' && (databaseUnavailableCodes.has(code) || code.startsWith('08'))) {
    return true;
  }
  if (driverError !== undefined && driverError !== error && isDatabaseUnavailable(driverError)) {
    return true;
  }
  const message = (error as { message?: unknown }).message;
  return (
    typeof message === 'string' &&
    /Connection terminated|connection timeout|Query read timeout|timeout exceeded when trying to connect|Client has encountered a connection error|Cannot use a pool after calling end|DataSource is not initialized/i.test(
      message,
    )
  );
}

/**
 * Turns anything thrown while handling a request into a problem response. Domain exceptions carry their
 * own code; framework exceptions are translated; anything else is logged here and answered with a bare 500.
 */
@Catch()
export class ProblemDetailsFilter implements ExceptionFilter {
  private readonly logger = new Logger(ProblemDetailsFilter.name);

  constructor(
    private readonly publicBaseUrl: string,
    private readonly routes: RouteTable,
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<Request>();
    const response = http.getResponse<Response>();
    sendProblem(this.translate(exception, request), request, response, this.publicBaseUrl);
  }

  translate(exception: unknown, request: Request): DomainException {
    if (exception instanceof DomainException) return exception;
    if (exception instanceof HttpException) return this.translateHttpException(exception, request);
    if (isDatabaseUnavailable(exception)) {
      this.logger.warn({
        msg: `Database unavailable during ${request.method} ${request.path}: ${describe(exception)}`,
        reqId: requestIdOf(request),
      });
      return new DomainException(
        'SERVICE_UNAVAILABLE',
        'The database did not answer in time; try again shortly.',
        undefined,
        { 'Retry-After': '5' },
      );
    }
    this.logger.error(
      {
        msg: `Unhandled error during ${request.method} ${request.path}`,
        reqId: requestIdOf(request),
      },
      exception instanceof Error ? exception.stack : String(exception),
    );
    return new DomainException('INTERNAL_ERROR', 'The request could not be completed.');
  }

  private translateHttpException(exception: HttpException, request: Request): DomainException {
    const status = exception.getStatus();
    if (status === 404) {
      const allowed = this.routes.allowedMethods(request.path, request.method);
      if (allowed.length === 0) {
        return new DomainException(
          'ROUTE_NOT_FOUND',
          `No route ${request.method} ${request.path}.`,
        );
      }
      return new DomainException(
        'METHOD_NOT_ALLOWED',
        `${request.method} is not supported on ${request.path}; use ${allowed.join(', ')}.`,
        undefined,
        { Allow: allowed.join(', ') },
      );
    }
    const known = frameworkStatuses[status];
    if (known !== undefined) {
      const headers: Record<string, string> =
        known[0] === 'SERVICE_UNAVAILABLE' ? { 'Retry-After': '5' } : {};
      return new DomainException(known[0], known[1], undefined, headers);
    }
    if (status >= 400 && status < 500) {
      return new DomainException('VALIDATION_FAILED', 'The request is not valid.');
    }
    this.logger.error(
      {
        msg: `HTTP ${status} during ${request.method} ${request.path}`,
        reqId: requestIdOf(request),
      },
      exception.stack,
    );
    return new DomainException('INTERNAL_ERROR', 'The request could not be completed.');
  }
}

/** Statuses that Nest or its middleware raise on their own, in our vocabulary. */
const frameworkStatuses: Partial<Record<number, [ErrorCode, string]>> = {
  401: ['UNAUTHORIZED', 'A valid bearer access token is required.'],
  403: ['FORBIDDEN', 'The caller may not perform this operation.'],
  413: ['PAYLOAD_TOO_LARGE', 'The request body exceeds 100 kB.'],
  415: ['UNSUPPORTED_MEDIA_TYPE', 'Send the body as application/json.'],
  503: ['SERVICE_UNAVAILABLE', 'The service is not available right now; try again shortly.'],
};

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
