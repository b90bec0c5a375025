import {
  Catch,
  HttpException,
  Logger,
  type ArgumentsHost,
  type ExceptionFilter,
} from '@nestjs/common';
import { type Request, type Response } from 'express';
import { requestIdOf } from '../logging.js';
import { loggablePath } from '../request-target.js';
import { isDependencyUnavailable, isReleasedRunner } from './dependency-unavailable.error.js';
import { DomainException } from './domain.exception.js';
import { type ErrorCode } from './error-codes.js';
import { sendProblem } from './problem-response.js';
import { type RouteTable } from './route-table.js';

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
    if (isDependencyUnavailable(exception)) {
      const entry = {
        msg: `${describe(exception)} during ${request.method} ${loggablePath(request.path)}`,
        reqId: requestIdOf(request),
      };
      if (isReleasedRunner(exception)) this.logger.error(entry, (exception as Error).stack);
      else this.logger.warn(entry);
      return new DomainException(
        'SERVICE_UNAVAILABLE',
        'The database did not answer in time; try again shortly.',
        undefined,
        { 'Retry-After': '5' },
      );
    }
    this.logger.error(
      {
        msg: `Unhandled error during ${request.method} ${loggablePath(request.path)}`,
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
        msg: `HTTP ${status} during ${request.method} ${loggablePath(request.path)}`,
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
