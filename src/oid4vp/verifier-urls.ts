import { createHash } from 'node:crypto';

/** Where a tenant's OpenID4VP verifier endpoints live: `{PUBLIC_BASE_URL}/ctrl/oid4vp/{tenantId}` (docs/oid4vp.md). */
export function verifierBase(publicBaseUrl: string, tenantId: string): string {
  return `${publicBaseUrl}/ctrl/oid4vp/${tenantId}`;
}

/** The request object's URL (`request_uri`, RFC 9101 §5.2). */
export function requestUriOf(publicBaseUrl: string, tenantId: string, reference: string): string {
  return `${verifierBase(publicBaseUrl, tenantId)}/requests/${reference}`;
}

/** Where the wallet posts its answer (`response_uri`, OpenID4VP 1.0 §8.2). */
export function responseUriOf(publicBaseUrl: string, tenantId: string, reference: string): string {
  return `${requestUriOf(publicBaseUrl, tenantId, reference)}/response`;
}

/** The tenant's client identifier (OpenID4VP 1.0 §5.9.3): its DID, which verifies the request object. */
export function clientIdOf(did: string): string {
  return `decentralized_identifier:${did}`;
}

/** The link a wallet opens (OpenID4VP 1.0 §5): the request by reference, signed by the client. */
export function authorizationRequestUriOf(
  clientId: string,
  requestUri: string,
  requestUriMethod: 'get' | 'post',
): string {
  const query = new URLSearchParams({ client_id: clientId, request_uri: requestUri });
  if (requestUriMethod === 'post') query.set('request_uri_method', 'post');
  return `openid4vp://?${query.toString()}`;
}

/** The random last segment of `request_uri`: 256 bits, base64url. */
export const referencePattern = /^[A-Za-z0-9_-]{43}$/;

/** How a request is found by its reference: SHA-256 of the reference's text (it is 256-bit random). */
export function referenceHashOf(reference: string): Buffer {
  return createHash('sha256').update(reference, 'utf8').digest();
}
