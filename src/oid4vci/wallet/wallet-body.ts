import { isUtf8 } from 'node:buffer';
import express, { type Request, type Response } from 'express';
import { hasBody } from '../../common/has-body.js';
import { OAuthError } from '../../common/oauth-error.js';

/** A token request is a few short fields; a credential request two proofs of a few hundred bytes. */
export const maxFormBytes = 8 * 1024;
export const maxFormFields = 20;
export const maxJsonBytes = 32 * 1024;

const parseForm = express.urlencoded({
  extended: false,
  limit: maxFormBytes,
  parameterLimit: maxFormFields,
});
const parseJson = express.json({
  limit: maxJsonBytes,
  strict: true,
  type: 'application/json',
  verify: (_request, _response, bytes) => {
    if (!isUtf8(bytes)) throw new Error('not UTF-8');
  },
});

type Parser = typeof parseForm;

function run(parser: Parser, request: Request, response: Response): Promise<boolean> {
  return new Promise((resolve) => parser(request, response, (error?: unknown) => resolve(!error)));
}

/**
 * The token request's form (RFC 6749 §3.2, §4.1.3): application/x-www-form-urlencoded, bounded, each
 * parameter at most once; anything else is `invalid_request`.
 */
export async function readForm(
  request: Request,
  response: Response,
): Promise<Record<string, string>> {
  const refuse = (description: string) => new OAuthError(400, 'invalid_request', description);
  if (!hasBody(request)) throw refuse('The request has no body.');
  if (request.is('application/x-www-form-urlencoded') === false)
    throw refuse('The body must be application/x-www-form-urlencoded.');
  if (!(await run(parseForm, request, response)))
    throw refuse(
      `The form is malformed or exceeds ${maxFormBytes} bytes or ${maxFormFields} fields.`,
    );
  const form: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.body as Record<string, unknown>)) {
    if (typeof value !== 'string') throw refuse(`The parameter ${name} is given more than once.`);
    form[name] = value;
  }
  return form;
}

/**
 * A JSON object body (OpenID4VCI 1.0 §8.2, §11.1), bounded; anything else is the endpoint's own
 * error code (`invalid_credential_request`, `invalid_notification_request`).
 */
export async function readJsonObject(
  request: Request,
  response: Response,
  error: string,
): Promise<Record<string, unknown>> {
  const refuse = (description: string) => new OAuthError(400, error, description);
  if (!hasBody(request)) throw refuse('The request has no body.');
  if (request.is('application/json') === false) throw refuse('The body must be application/json.');
  if (!(await run(parseJson, request, response)))
    throw refuse(`The body is not UTF-8 JSON of at most ${maxJsonBytes} bytes.`);
  const body: unknown = request.body;
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw refuse('The body must be a JSON object.');
  return body as Record<string, unknown>;
}
