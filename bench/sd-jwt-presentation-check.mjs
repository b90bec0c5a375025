// @ts-check
// What the SD-JWT presentation baselines (bench/sd-jwt-presentation-baseline.mjs,
// bench/sd-jwt-presentation-stack-floor.mjs) check of one answer, with the library the service uses
// (@sd-jwt/core): the issuer's signature with its key in memory, every disclosure's digest, the key
// binding JWT (signature by the cnf key, nonce, audience, freshness, sd_hash), and the status read from a
// list in memory.
import { createHash, createPublicKey, verify } from 'node:crypto';
import { SDJwtInstance } from '@sd-jwt/core';

/** @param {import('node:crypto').KeyObject} key @param {string} data @param {string} signature */
const es256Verifies = (key, data, signature) =>
  verify(
    'sha256',
    Buffer.from(data),
    { key, dsaEncoding: 'ieee-p1363' },
    Buffer.from(signature, 'base64url'),
  );

/**
 * A check of `vp_token` answers presenting credentials of the issuer's key, with `nonce` and `aud`.
 * @param {import('node:crypto').JsonWebKey} issuerJwk @param {string} nonce @param {string} aud
 */
export function presentationCheck(issuerJwk, nonce, aud) {
  const issuerKey = createPublicKey({ key: issuerJwk, format: 'jwk' });
  /** A revocation list in memory: every credential valid. */
  const statusBits = Buffer.alloc(131_072 / 8);
  const verifier = new SDJwtInstance({
    hasher: (data, alg) => {
      if (alg !== 'sha-256') throw new Error(alg);
      const bytes = typeof data === 'string' ? Buffer.from(data) : Buffer.from(data);
      return new Uint8Array(createHash('sha256').update(bytes).digest());
    },
    verifier: (data, signature) => es256Verifies(issuerKey, data, signature),
    kbVerifier: (data, signature, payload) => {
      const jwk = /** @type {any} */ (payload).cnf?.jwk;
      return es256Verifies(createPublicKey({ key: jwk, format: 'jwk' }), data, signature);
    },
  });
  /** @param {string | null | undefined} vpTokenJson */
  return async (vpTokenJson) => {
    const vpToken = JSON.parse(vpTokenJson ?? '{}');
    const [presentation] = Object.values(vpToken)[0];
    const { payload, kb } = await verifier.verify(presentation, {
      keyBindingNonce: nonce,
      requiredClaimKeys: ['given_name', 'family_name'],
    });
    if (kb === undefined || kb.payload.aud !== aud) throw new Error('audience');
    if (Math.abs(Date.now() / 1000 - Number(kb.payload.iat)) > 300) throw new Error('stale');
    const index = /** @type {any} */ (payload).status?.status_list?.idx ?? 0;
    if ((statusBits[index >> 3] >> (index & 7)) & 1) throw new Error('revoked');
  };
}
