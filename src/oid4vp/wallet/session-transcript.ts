import { jwkThumbprint, type PublicJwk } from '../../jose/jwk.js';
import { oid4vpSessionTranscript } from '../../mdoc/session-transcript.js';
import { type PresentationRequestEntity } from '../requests/wallet-requests.js';
import { type RequestSecrets } from '../requests/presentation-request.sealed-columns.js';
import { responseUriOf } from '../verifier-urls.js';
import { encryptionJwkOf } from './request-object.js';

/**
 * The `SessionTranscript` an mdoc's device signature must cover for a redirect request (OpenID4VP 1.0
 * appendix B.2.6.1, `OpenID4VPHandover`): its client id with the prefix, as the request object says
 * it; its nonce; for direct_post.jwt the RFC 7638 SHA-256 thumbprint of the key the answer is
 * encrypted to, else null; the response URI the wallet posted to.
 */
export function redirectSessionTranscript(
  open: { request: PresentationRequestEntity; secrets: RequestSecrets; reference: string },
  publicBaseUrl: string,
): Promise<Uint8Array> {
  const { request, secrets, reference } = open;
  const key =
    request.responseMode === 'direct_post.jwt' && secrets.responseKey !== undefined
      ? (encryptionJwkOf(secrets.responseKey) as unknown as PublicJwk)
      : undefined;
  return oid4vpSessionTranscript({
    clientId: request.clientId,
    nonce: request.nonce,
    jwkThumbprint: key === undefined ? null : Buffer.from(jwkThumbprint(key), 'base64url'),
    responseUri: responseUriOf(publicBaseUrl, request.tenantId, reference),
  });
}
