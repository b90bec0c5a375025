import express, { type NextFunction, type Request, type Response } from 'express';
import { DomainException } from './problem/domain.exception.js';
import { sendProblem } from './problem/problem-response.js';

export const maxBodyBytes = 100 * 1024;

function hasBody(request: Request): boolean {
  const length = request.headers['content-length'];
  return (
    (length !== undefined && length !== '0') || request.headers['transfer-encoding'] !== undefined
  );
}

function isJson(request: Request): boolean {
  return request.is(['application/json', 'application/*+json']) !== false;
}

/**
 * JSON body handling for the API: at most 100 kB, JSON only, an object when present. Every failure is a
 * problem response, written here because body parsing runs before Nest's filters.
 */
export function apiBodyMiddleware(publicBaseUrl: string) {
  const parseJson = express.json({
    limit: maxBodyBytes,
    strict: true,
    type: ['application/json', 'application/*+json'],
  });

  const requireJson = (request: Request, response: Response, next: NextFunction) => {
    if (hasBody(request) && !isJson(request)) {
      sendProblem(
        new DomainException(
          'UNSUPPORTED_MEDIA_TYPE',
          `Bodies must be application/json, not ${request.headers['content-type'] ?? 'untyped'}.`,
        ),
        request,
        response,
        publicBaseUrl,
      );
      return;
    }
    next();
  };

  const translateParseErrors = (
    error: unknown,
    request: Request,
    response: Response,
    next: NextFunction,
  ) => {
    const type = (error as { type?: unknown }).type;
    const exception =
      type === 'entity.too.large'
        ? new DomainException('PAYLOAD_TOO_LARGE', `The body exceeds ${maxBodyBytes / 1024} kB.`)
        : type === 'entity.parse.failed'
          ? new DomainException('MALFORMED_JSON', 'The body is not valid JSON.')
          : type === 'encoding.unsupported' || type === 'charset.unsupported'
            ? new DomainException('UNSUPPORTED_MEDIA_TYPE', 'Send the body as UTF-8 JSON.')
            : type === 'request.aborted' || type === 'request.size.invalid'
              ? new DomainException(
                  'VALIDATION_FAILED',
                  'The body was cut short or its length is wrong.',
                )
              : undefined;
    if (exception === undefined) {
      next(error);
      return;
    }
    sendProblem(exception, request, response, publicBaseUrl);
  };

  const requireObject = (request: Request, response: Response, next: NextFunction) => {
    const body: unknown = request.body;
    if (body !== undefined && (body === null || typeof body !== 'object' || Array.isArray(body))) {
      sendProblem(
        new DomainException('VALIDATION_FAILED', 'The body must be a JSON object.', [
          { field: 'body', message: 'must be a JSON object' },
        ]),
        request,
        response,
        publicBaseUrl,
      );
      return;
    }
    next();
  };

  return [requireJson, parseJson, translateParseErrors, requireObject];
}
