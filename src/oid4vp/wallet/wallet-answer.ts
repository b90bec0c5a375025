import { createPrivateKey } from 'node:crypto';
import { compactDecrypt, decodeProtectedHeader } from 'jose';
import { invalidRequest } from '../../common/oauth-error.js';
import { responseEncryptionAlg, responseEncryptionEncs } from './request-object.js';

/** What a wallet's answer says once read: its `vp_token` (JSON text or object) and `state`. */
export interface AnswerPayload {
  vpToken: unknown;
  state: unknown;
}

/**
 * A wallet's answer as posted (OpenID4VP 1.0 §8.2, §8.3): in the clear, or a JWE to decrypt first,
 * with the `state` some wallets also post in the clear beside it (Sphereon's did-auth-siop does).
 */
export type WalletAnswer = { encrypted: string; clearState?: string } | { payload: AnswerPayload };

/** Presentations of one credential query in one answer: DCQL's `multiple` never needs more here. */
export const maxPresentationsPerQuery = 10;

const compactJwe =
  /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/**
 * Why a well-formed answer with the request's state does not count: it ends the request as failed
 * with this stable code and reason (docs/oid4vp.md).
 */
export class AnswerFailure extends Error {
  constructor(
    readonly code: string,
    readonly reason: string,
  ) {
    super(`${code}: ${reason}`);
    this.name = 'AnswerFailure';
  }
}

/**
 * The form's answer: `response`, optionally with `state` in the clear (direct_post.jwt), or `vp_token`
 * with `state` (direct_post).
 */
export function answerOf(form: Record<string, string>): WalletAnswer {
  if (form.response !== undefined) {
    if (form.vp_token !== undefined)
      throw invalidRequest('An encrypted answer carries vp_token inside response alone.');
    if (!compactJwe.test(form.response))
      throw invalidRequest('The response parameter is not a compact JWE.');
    return form.state === undefined
      ? { encrypted: form.response }
      : { encrypted: form.response, clearState: form.state };
  }
  if (form.vp_token === undefined) throw invalidRequest('The answer has no vp_token.');
  if (form.state === undefined) throw invalidRequest('The answer has no state.');
  return { payload: { vpToken: form.vp_token, state: form.state } };
}

/**
 * Decrypts a direct_post.jwt answer (OpenID4VP 1.0 §8.3) with the request's key: ECDH-ES to that
 * key (its kid, when named), A128GCM or A256GCM, no compression; its payload a JSON object.
 */
export async function decryptAnswer(
  jwe: string,
  responseKey: Record<string, unknown>,
): Promise<AnswerPayload> {
  const refuse = (why: string) => invalidRequest(`The response could not be decrypted: ${why}.`);
  let header: Record<string, unknown>;
  try {
    header = decodeProtectedHeader(jwe);
  } catch {
    throw refuse('its header is not JSON');
  }
  if (header.alg !== responseEncryptionAlg) throw refuse(`alg must be ${responseEncryptionAlg}`);
  if (!(responseEncryptionEncs as readonly unknown[]).includes(header.enc))
    throw refuse(`enc must be one of ${responseEncryptionEncs.join(', ')}`);
  if (header.kid !== undefined && header.kid !== responseKey.kid)
    throw refuse('kid names another key than the request’s');
  if (header.zip !== undefined) throw refuse('compression is not accepted');
  let plaintext: Uint8Array;
  try {
    const key = createPrivateKey({ key: responseKey as never, format: 'jwk' });
    ({ plaintext } = await compactDecrypt(jwe, key, {
      keyManagementAlgorithms: [responseEncryptionAlg],
      contentEncryptionAlgorithms: [...responseEncryptionEncs],
    }));
  } catch {
    throw refuse('it is not encrypted to this request’s key');
  }
  let payload: unknown;
  try {
    payload = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(plaintext));
  } catch {
    throw refuse('its payload is not JSON');
  }
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload))
    throw refuse('its payload is not a JSON object');
  const { vp_token: vpToken, state } = payload as Record<string, unknown>;
  return { vpToken, state };
}

/**
 * The `vp_token` (OpenID4VP 1.0 §8.1): a JSON object keyed by credential query id, each value a
 * non-empty array of presentations (a lone string or object is read as an array of one, as the
 * drafts sent it). Anything else, or a query the request does not ask for, fails the request.
 */
export function presentationsOf(
  vpToken: unknown,
  queryIds: readonly string[],
): Map<string, unknown[]> {
  const malformed = (why: string) => new AnswerFailure('response_malformed', why);
  let token = vpToken;
  if (typeof token === 'string') {
    try {
      token = JSON.parse(token);
    } catch {
      throw malformed('The vp_token is not JSON.');
    }
  }
  if (typeof token !== 'object' || token === null || Array.isArray(token))
    throw malformed('The vp_token is not a JSON object keyed by credential query id.');
  const presentations = new Map<string, unknown[]>();
  for (const [id, value] of Object.entries(token as Record<string, unknown>)) {
    if (!queryIds.includes(id))
      throw malformed(
        `The vp_token names credential query ${JSON.stringify(id.slice(0, 64))}, which the request does not ask for.`,
      );
    const entries = Array.isArray(value) ? value : [value];
    if (entries.length === 0 || entries.length > maxPresentationsPerQuery)
      throw malformed(
        `The vp_token must give 1 to ${maxPresentationsPerQuery} presentations for ${id}.`,
      );
    for (const entry of entries) {
      const shaped =
        typeof entry === 'string' ||
        (typeof entry === 'object' && entry !== null && !Array.isArray(entry));
      if (!shaped) throw malformed(`A presentation for ${id} is neither a string nor an object.`);
    }
    presentations.set(id, entries);
  }
  if (presentations.size === 0) throw malformed('The vp_token presents nothing.');
  return presentations;
}
