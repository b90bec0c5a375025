import { type Request, type Response } from 'express';
import express from 'express';
import { hasBody } from '../../common/has-body.js';
import { invalidRequest } from '../../common/oauth-error.js';

/** A request object's POST (OpenID4VP 1.0 §5.10): wallet_metadata and wallet_nonce, a few KiB. */
export const maxRequestFormBytes = 16 * 1024;
/** An answer (OpenID4VP 1.0 §8.2): a few SD-JWT VCs or Data Integrity presentations, plain or as a JWE. */
export const maxResponseFormBytes = 512 * 1024;
const maxFields = 20;

const limits = { request: maxRequestFormBytes, response: maxResponseFormBytes };
const formParser = (limit: number) =>
  express.urlencoded({ extended: false, limit, parameterLimit: maxFields });
const parsers = { request: formParser(limits.request), response: formParser(limits.response) };

/**
 * An application/x-www-form-urlencoded body of at most the endpoint's bytes, each parameter at most once;
 * no body at all is an empty form (a wallet may POST for a request object without parameters).
 */
export async function readWalletForm(
  request: Request,
  response: Response,
  endpoint: 'request' | 'response',
): Promise<Record<string, string>> {
  if (!hasBody(request)) return {};
  if (request.is('application/x-www-form-urlencoded') === false)
    throw invalidRequest('The body must be application/x-www-form-urlencoded.');
  const parse = parsers[endpoint];
  const limit = limits[endpoint];
  const parsed = await new Promise<boolean>((resolve) =>
    parse(request, response, (error?: unknown) => resolve(!error)),
  );
  if (!parsed)
    throw invalidRequest(`The form is malformed or exceeds ${limit} bytes or ${maxFields} fields.`);
  const form: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.body as Record<string, unknown>)) {
    if (typeof value !== 'string')
      throw invalidRequest(`The parameter ${name} is given more than once.`);
    form[name] = value;
  }
  return form;
}
