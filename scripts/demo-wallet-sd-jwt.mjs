// @ts-check
/**
 * The demo wallet's SD-JWT VC answers (@sd-jwt/core): the claims a DCQL query names, disclosed, and a
 * key binding JWT over the request's client id (`aud`) and nonce, as OpenID4VP 1.0 wants for SD-JWT VCs.
 */
import { createHash, createPrivateKey, sign } from 'node:crypto';
import { SDJwtInstance } from '@sd-jwt/core';

/** A presentation frame disclosing the claims a DCQL query's paths name (all when it names none). */
function frameOf(query, claims) {
  const paths = query.claims?.map((claim) => claim.path) ?? Object.keys(claims).map((n) => [n]);
  const frame = {};
  for (const path of paths) {
    let level = frame;
    const names = path.filter((segment) => typeof segment === 'string');
    names.forEach((name, index) => {
      level[name] = index === names.length - 1 ? true : (level[name] ?? {});
      level = level[name];
    });
  }
  return frame;
}

/**
 * The presentation of a held SD-JWT VC that answers one credential query.
 * @param {string} credential @param {any} credentialQuery @param {any} request the request object's claims
 * @param {import('jose').JWK} privateJwk the key (P-256) the credential was bound to
 */
export async function presentSdJwt(credential, credentialQuery, request, privateJwk) {
  const sdJwt = new SDJwtInstance({
    hasher: (data) =>
      new Uint8Array(
        createHash('sha256')
          .update(typeof data === 'string' ? data : new Uint8Array(data))
          .digest(),
      ),
    kbSignAlg: 'ES256',
    // The signature over the KB-JWT's signing input, as JWS ES256 has it (r || s).
    kbSigner: (input) =>
      sign('sha256', Buffer.from(input), {
        key: createPrivateKey({ key: /** @type {any} */ (privateJwk), format: 'jwk' }),
        dsaEncoding: 'ieee-p1363',
      }).toString('base64url'),
  });
  const claims = await sdJwt.getClaims(credential);
  return sdJwt.present(credential, frameOf(credentialQuery, claims), {
    kb: {
      payload: { iat: Math.floor(Date.now() / 1000), aud: request.client_id, nonce: request.nonce },
    },
  });
}
