import { SessionTranscript } from '@owf/mdoc';
import { mdocContext } from './mdoc-context.js';

/**
 * The CBOR `SessionTranscript` of an OpenID4VP answer over a redirect (OpenID4VP 1.0 appendix B.2.6.1):
 * `[null, null, ["OpenID4VPHandover", SHA-256(CBOR [clientId, nonce, jwkThumbprint or null,
 * responseUri])]]`. `clientId` carries its prefix; `jwkThumbprint` is the RFC 7638 thumbprint (bytes)
 * of the request's encryption key, null when the answer is not encrypted.
 */
export async function oid4vpSessionTranscript(p: {
  clientId: string;
  nonce: string;
  jwkThumbprint: Uint8Array | null;
  responseUri: string;
}): Promise<Uint8Array> {
  const transcript = await SessionTranscript.forOid4Vp(
    {
      clientId: p.clientId,
      nonce: p.nonce,
      jwkThumbprint: p.jwkThumbprint ?? undefined,
      responseUri: p.responseUri,
    },
    mdocContext(),
  );
  return transcript.encode();
}

/**
 * The CBOR `SessionTranscript` of an answer through the Digital Credentials API (OpenID4VP 1.0
 * appendix B.2.6.2): `[null, null, ["OpenID4VPDCAPIHandover", SHA-256(CBOR [origin, nonce,
 * jwkThumbprint or null])]]`, `origin` the web origin the browser reports.
 */
export async function dcApiSessionTranscript(p: {
  origin: string;
  nonce: string;
  jwkThumbprint: Uint8Array | null;
}): Promise<Uint8Array> {
  const transcript = await SessionTranscript.forOid4VpDcApi(
    { origin: p.origin, nonce: p.nonce, jwkThumbprint: p.jwkThumbprint ?? undefined },
    mdocContext(),
  );
  return transcript.encode();
}
