// @ts-check
/**
 * The demo wallet's mdocs (ISO/IEC 18013-5) through @owf/mdoc: an `mso_mdoc` credential checked when
 * received (the issuer's COSE signature by its document signer, whose `x5chain` leads up to the
 * `--trust` root, the IACA), and a DeviceResponse of the asked elements only, device-signed over the
 * OpenID4VP 1.0 appendix B.2.6.1 session transcript.
 */
import { createHash, createPrivateKey, randomBytes, sign, verify } from 'node:crypto';
import {
  CoseKey,
  DeviceRequest,
  DocRequest,
  Holder,
  IssuerSigned,
  ItemsRequest,
  SessionTranscript,
} from '@owf/mdoc';
import { calculateJwkThumbprint } from 'jose';
import { trustedLeaf } from './demo-wallet-x509.mjs';

/**
 * What @owf/mdoc needs of a holder: digests, random bytes, and ES256 with the wallet's own key.
 * @param {import('jose').JWK} [privateJwk]
 * @returns {any}
 */
const contextOf = (privateJwk) => ({
  crypto: {
    random: (/** @type {number} */ length) => new Uint8Array(randomBytes(length)),
    digest: ({ digestAlgorithm, bytes }) =>
      new Uint8Array(
        createHash(digestAlgorithm.replace('-', '').toLowerCase()).update(bytes).digest(),
      ),
    calculateEphemeralMacKey: () => {
      throw new Error('the demo wallet signs; it has no MAC keys');
    },
  },
  cose: {
    sign1: {
      sign: ({ toBeSigned }) =>
        new Uint8Array(
          sign('sha256', toBeSigned, {
            key: createPrivateKey({ key: /** @type {any} */ (privateJwk), format: 'jwk' }),
            dsaEncoding: 'ieee-p1363',
          }),
        ),
    },
  },
});

/**
 * A received mdoc's doctype and what the wallet can say of its signer: the document signer of its
 * `x5chain`, checked (chain up to the root, COSE_Sign1 ES256 by the leaf's key) when it trusts a root.
 * @param {string} credential base64url of the CBOR IssuerSigned (OpenID4VCI 1.0 appendix A.2.4)
 * @param {string | undefined} trust the root's PEM file
 */
export async function checkMdoc(credential, trust) {
  const { issuerAuth } = IssuerSigned.fromEncodedForOid4Vci(credential);
  const doctype = issuerAuth.mobileSecurityObject.docType;
  const x5chain = issuerAuth.certificateChain.map((der) => Buffer.from(der).toString('base64'));
  if (trust === undefined)
    return { doctype, signer: 'its x5chain not checked: no --trust root (the IACA)' };
  const leaf = await trustedLeaf(x5chain, trust);
  const signed = verify(
    'sha256',
    issuerAuth.toBeSigned,
    { key: leaf.toString('pem'), dsaEncoding: 'ieee-p1363' },
    issuerAuth.signature,
  );
  if (!signed) throw new Error('the MSO signature does not verify with the document signer key');
  return {
    doctype,
    signer: `signed by ${leaf.subject} through x5chain (chain to the trusted root verified)`,
  };
}

/**
 * The DeviceResponse (base64url, OpenID4VP 1.0 appendix B.2.4) that answers one `mso_mdoc` credential
 * query with the elements it names (all the mdoc's when it names none).
 * @param {{ credential: string, doctype: string }} held
 * @param {any} credentialQuery @param {any} request the request object's claims
 * @param {import('jose').JWK} privateJwk the device key (P-256) the credential was bound to
 */
export async function presentMdoc(held, credentialQuery, request, privateJwk) {
  const issuerSigned = IssuerSigned.fromEncodedForOid4Vci(held.credential);
  /** @type {Record<string, Record<string, boolean>>} */
  const namespaces = {};
  const paths =
    credentialQuery.claims?.map((/** @type {any} */ claim) => claim.path) ??
    [...issuerSigned.issuerNamespaces.issuerNamespaces].flatMap(([namespace, items]) =>
      items.map((item) => [namespace, item.elementIdentifier]),
    );
  for (const [namespace, element] of paths) (namespaces[namespace] ??= {})[element] = false;
  const deviceRequest = DeviceRequest.create({
    docRequests: [
      DocRequest.create({
        itemsRequest: ItemsRequest.create({ docType: held.doctype, namespaces }),
      }),
    ],
  });
  // For direct_post.jwt the transcript names the key the answer is encrypted to (the first one offered).
  const encryptionJwk = request.client_metadata?.jwks?.keys?.[0];
  const sessionTranscript = await SessionTranscript.forOid4Vp(
    {
      clientId: request.client_id,
      nonce: request.nonce,
      jwkThumbprint:
        request.response_mode === 'direct_post.jwt' && encryptionJwk
          ? Buffer.from(await calculateJwkThumbprint(encryptionJwk, 'sha256'), 'base64url')
          : undefined,
      responseUri: request.response_uri,
    },
    contextOf(),
  );
  const response = await Holder.createDeviceResponseForDeviceRequest(
    {
      deviceRequest,
      sessionTranscript,
      issuerSigned: [issuerSigned],
      // The alg names the protected header's algorithm: ES256 (COSE -7, OpenID4VP 1.0 appendix B.2.2).
      signature: { signingKey: CoseKey.fromJwk({ ...privateJwk, alg: 'ES256' }) },
    },
    contextOf(privateJwk),
  );
  return response.encodedForOid4Vp;
}
