import { calculateJwkThumbprint, type JWK } from 'jose';
import { dcApiSessionTranscript, oid4vpSessionTranscript } from '../../mdoc/session-transcript.js';
import { type PresentationRequestEntity } from '../requests/wallet-requests.js';

/**
 * What an answer must be bound to (docs/oid4vp.md): the audience its holder proofs name, a KB-JWT's
 * `aud` or a Data Integrity proof's `domain`, and what an mso_mdoc's SessionTranscript is made of:
 * the OpenID4VPHandover of a redirect (OpenID4VP 1.0 B.2.6.1) or the OpenID4VPDCAPIHandover of the DC
 * API (B.2.6.2). The one place that says how a channel binds its answers.
 */
export type AnswerBinding =
  | {
      channel: 'redirect';
      /** The request's client id, prefix included (§5.9.3). */
      audience: string;
      clientId: string;
      nonce: string;
      responseUri: string;
      /** RFC 7638 SHA-256 thumbprint of the response encryption key (direct_post.jwt), else null. */
      jwkThumbprint: Uint8Array | null;
    }
  | {
      channel: 'dc_api';
      /** `origin:<origin>`, even for signed requests (appendix A.4). */
      audience: string;
      /** The browser's origin, as the relying party's page read it (`location.origin`). */
      origin: string;
      nonce: string;
      /** RFC 7638 SHA-256 thumbprint of the response encryption key (dc_api.jwt), else null. */
      jwkThumbprint: Uint8Array | null;
    };

/** A redirect request's binding: its client id, answered at its response_uri. */
export async function redirectBinding(
  request: PresentationRequestEntity,
  responseUri: string,
  responseKey: Record<string, unknown> | undefined,
): Promise<AnswerBinding> {
  return {
    channel: 'redirect',
    audience: request.clientId,
    clientId: request.clientId,
    nonce: request.nonce,
    responseUri,
    jwkThumbprint: await thumbprintOf(responseKey),
  };
}

/** A DC API request's binding: the origin the browser reported, whatever the request's client id. */
export async function dcApiBinding(
  request: PresentationRequestEntity,
  origin: string,
  responseKey: Record<string, unknown> | undefined,
): Promise<AnswerBinding> {
  return {
    channel: 'dc_api',
    audience: `origin:${origin}`,
    origin,
    nonce: request.nonce,
    jwkThumbprint: await thumbprintOf(responseKey),
  };
}

/**
 * The CBOR SessionTranscript an mdoc's device signature must cover: the OpenID4VPHandover of a redirect
 * (client id with its prefix, nonce, key thumbprint or null, response URI; B.2.6.1) or the
 * OpenID4VPDCAPIHandover of the DC API (origin, nonce, key thumbprint or null; B.2.6.2).
 */
export function sessionTranscriptOf(binding: AnswerBinding): Promise<Uint8Array> {
  if (binding.channel === 'dc_api')
    return dcApiSessionTranscript({
      origin: binding.origin,
      nonce: binding.nonce,
      jwkThumbprint: binding.jwkThumbprint,
    });
  return oid4vpSessionTranscript({
    clientId: binding.clientId,
    nonce: binding.nonce,
    jwkThumbprint: binding.jwkThumbprint,
    responseUri: binding.responseUri,
  });
}

/** The thumbprint over the key's required public members only (RFC 7638 §3.2). */
async function thumbprintOf(key: Record<string, unknown> | undefined): Promise<Uint8Array | null> {
  if (key === undefined) return null;
  const { kty, crv, x, y } = key;
  const thumbprint = await calculateJwkThumbprint({ kty, crv, x, y } as JWK, 'sha256');
  return Buffer.from(thumbprint, 'base64url');
}
