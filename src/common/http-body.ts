import { isUtf8 } from 'node:buffer';
import express, { type NextFunction, type Request, type Response } from 'express';
import { hasBody } from './has-body.js';
import { DomainException } from './problem/domain.exception.js';
import { type FieldError } from './problem/problem.js';
import { sendProblem } from './problem/problem-response.js';

export const maxBodyBytes = 100 * 1024;
export const maxFormFields = 100;
/** Deeper JSON is refused before validation, whose libraries recurse once per level. */
export const maxJsonDepth = 32;
/**
 * More JSON values (objects, arrays, strings, numbers, booleans, nulls) are refused before
 * validation, whose transformation copies every one: 100 kB could hold 30,000 empty objects.
 */
export const maxJsonValues = 2_000;

class NotUtf8Error extends Error {}

const parseJson = express.json({
  limit: maxBodyBytes,
  strict: true,
  type: ['application/json', 'application/*+json'],
  verify: (_request, _response, bytes) => {
    if (!isUtf8(bytes)) throw new NotUtf8Error();
  },
});

/** body-parser's failures, in our words; undefined for anything else. */
function translateParseError(error: unknown): DomainException | undefined {
  const type = (error as { type?: unknown }).type;
  switch (type) {
    case 'entity.too.large':
      return new DomainException(
        'PAYLOAD_TOO_LARGE',
        `The body exceeds ${maxBodyBytes / 1024} kB.`,
      );
    case 'parameters.too.many':
      return new DomainException(
        'PAYLOAD_TOO_LARGE',
        `The form has more than ${maxFormFields} fields.`,
      );
    case 'entity.parse.failed':
      return new DomainException('MALFORMED_JSON', 'The body is not valid JSON.');
    case 'entity.verify.failed':
      return new DomainException('MALFORMED_JSON', 'The body is not valid UTF-8.');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new DomainException('UNSUPPORTED_MEDIA_TYPE', 'Send the body as UTF-8 JSON.');
    case 'request.aborted':
    case 'request.size.invalid':
      return new DomainException(
        'VALIDATION_FAILED',
        'The body was cut short or its length is wrong.',
      );
    default:
      return undefined;
  }
}

/** Which bound a parsed JSON value exceeds, if any: walked without recursion, given up past it. */
function exceededBound(value: unknown): 'depth' | 'values' | undefined {
  const pending: [unknown, number][] = [[value, 0]];
  let values = 0;
  while (pending.length > 0) {
    const [current, depth] = pending.pop()!;
    if (++values > maxJsonValues) return 'values';
    if (typeof current !== 'object' || current === null) continue;
    if (depth >= maxJsonDepth) return 'depth';
    for (const child of Object.values(current)) pending.push([child, depth + 1]);
  }
  return undefined;
}

/**
 * The API's query string: each parameter once, in valid UTF-8 (Express would keep the last of several
 * and turn broken escapes into U+FFFD, which would then be stored).
 */
export function checkApiQuery(request: Request): void {
  const start = request.originalUrl.indexOf('?');
  if (start < 0) return;
  const query = request.originalUrl.slice(start + 1);
  const seen = new Set<string>();
  const errors: FieldError[] = [];
  for (const pair of query.split('&')) {
    if (pair === '') continue;
    const [rawName = '', rawValue = ''] = pair.split(/=(.*)/s, 2);
    const name = decodeQueryComponent(rawName);
    if (name === undefined || decodeQueryComponent(rawValue) === undefined) {
      errors.push({ field: name ?? rawName, message: 'is not valid UTF-8' });
    } else if (seen.has(name)) {
      errors.push({ field: name, message: 'is given more than once' });
    }
    if (name !== undefined) seen.add(name);
  }
  if (errors.length > 0) {
    throw new DomainException(
      'VALIDATION_FAILED',
      errors.map((error) => `${error.field} ${error.message}`).join('; '),
      errors,
    );
  }
}

function decodeQueryComponent(text: string): string | undefined {
  try {
    return decodeURIComponent(text.replaceAll('+', ' '));
  } catch {
    return undefined;
  }
}

/**
 * Reads an API request's JSON body, once its caller has been let in: at most 100 kB, JSON in UTF-8, an
 * object when present, nested at most `maxJsonDepth` levels, with at most `maxJsonValues` values.
 * Every failure is a DomainException.
 */
export async function readJsonBody(request: Request, response: Response): Promise<void> {
  if (!hasBody(request)) return;
  if (request.is(['application/json', 'application/*+json']) === false) {
    throw new DomainException(
      'UNSUPPORTED_MEDIA_TYPE',
      `Bodies must be application/json, not ${request.headers['content-type'] ?? 'untyped'}.`,
    );
  }
  await new Promise<void>((resolve, reject) =>
    parseJson(request, response, (error?: unknown) =>
      error === undefined ? resolve() : reject(translateParseError(error) ?? (error as Error)),
    ),
  );
  const body: unknown = request.body;
  const bound = exceededBound(body);
  if (bound !== undefined) throw beyondBound(bound);
  if (body !== undefined && (body === null || typeof body !== 'object' || Array.isArray(body))) {
    throw new DomainException('VALIDATION_FAILED', 'The body must be a JSON object.', [
      { field: 'body', message: 'must be a JSON object' },
    ]);
  }
}

function beyondBound(bound: 'depth' | 'values'): DomainException {
  const message =
    bound === 'depth'
      ? `is nested more than ${maxJsonDepth} levels deep`
      : `has more than ${maxJsonValues} JSON values`;
  return new DomainException('VALIDATION_FAILED', `The body ${message}.`, [
    { field: 'body', message },
  ]);
}

/** The issuer's OAuth forms (application/x-www-form-urlencoded), as Keycloak takes them. */
export function formBodyMiddleware(publicBaseUrl: string) {
  const parseForm = express.urlencoded({
    extended: false,
    limit: maxBodyBytes,
    parameterLimit: maxFormFields,
  });
  const translate = (error: unknown, request: Request, response: Response, next: NextFunction) => {
    const exception = translateParseError(error);
    if (exception === undefined) next(error);
    else sendProblem(exception, request, response, publicBaseUrl);
  };
  return [parseForm, translate];
}

/** HTTP/1.1 requires Host (RFC 9112 §3.2); Node's own refusal would be a bare 400. */
export function hostRequired(publicBaseUrl: string) {
  return (request: Request, response: Response, next: NextFunction) => {
    if (request.headers.host !== undefined || request.httpVersion !== '1.1') {
      next();
      return;
    }
    sendProblem(
      new DomainException('MALFORMED_REQUEST', 'An HTTP/1.1 request must carry a Host header.'),
      request,
      response,
      publicBaseUrl,
    );
  };
}
