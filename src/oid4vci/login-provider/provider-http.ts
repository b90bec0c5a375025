import {
  guardedRequest,
  OutboundError,
  type OutboundPolicy,
  type OutboundResponse,
} from '../../common/outbound.js';
import { LoginProviderError } from './login-provider.error.js';
import { loginProviderLimits } from './login-provider-limits.js';

export type Json = Record<string, unknown>;

export interface ProviderCall {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
}

/**
 * One request to a login provider through the outbound guard (docs/operations.md, Outgoing requests):
 * its own deadline, the answer capped, no redirect followed. A failure to get an answer is `unreachable`.
 */
export async function providerRequest(
  url: string,
  policy: OutboundPolicy,
  what: string,
  call: ProviderCall = {},
): Promise<OutboundResponse> {
  try {
    return await guardedRequest(url, policy, {
      ...call,
      timeoutMs: loginProviderLimits.timeoutMs,
      maxBytes: loginProviderLimits.bytes,
    });
  } catch (error) {
    if (!(error instanceof OutboundError)) throw error;
    const reason = error.failure === 'too-large' ? 'invalid_answer' : 'unreachable';
    throw new LoginProviderError(reason, `${what} at ${url}: ${error.message}`);
  }
}

/** The answer's body as a JSON object, or `invalid_answer`. */
export function jsonObjectOf(response: OutboundResponse, what: string): Json {
  let body: unknown;
  try {
    body = JSON.parse(response.body.toString('utf8'));
  } catch {
    throw new LoginProviderError('invalid_answer', `${what} is not JSON`);
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new LoginProviderError('invalid_answer', `${what} is not a JSON object`);
  }
  return body as Json;
}

/** A GET of a JSON object that must answer 200; a 5xx is `unreachable`, any other status `invalid_answer`. */
export async function providerJson(
  url: string,
  policy: OutboundPolicy,
  what: string,
): Promise<Json> {
  const response = await providerRequest(url, policy, what, {
    headers: { accept: 'application/json' },
  });
  if (response.status !== 200) {
    const reason = response.status >= 500 ? 'unreachable' : 'invalid_answer';
    throw new LoginProviderError(reason, `${what} at ${url} answered HTTP ${response.status}`);
  }
  return jsonObjectOf(response, `${what} at ${url}`);
}
