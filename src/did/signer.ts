import { createPrivateKey, sign, type KeyObject } from 'node:crypto';

/**
 * The Ed25519 private key of a raw public key and its 32-byte seed, which the caller wipes. As a JWK,
 * not PKCS #8 DER: OpenSSL 3 imports DER through its decoder framework, ten times slower.
 */
export function ed25519PrivateKey(publicKey: Uint8Array, seed: Uint8Array): KeyObject {
  const x = Buffer.from(publicKey).toString('base64url');
  // A view, not a copy: the caller's wipe reaches every byte.
  const d = Buffer.from(seed.buffer, seed.byteOffset, seed.byteLength).toString('base64url');
  return createPrivateKey({ key: { kty: 'OKP', crv: 'Ed25519', x, d }, format: 'jwk' });
}

/**
 * A signer in the shape the Data Integrity libraries expect, for an Ed25519 key the caller hands over on
 * each signature (the tenant's, kept unsealed by did/unsealed-keys.ts): no library ever holds the key.
 */
export function ed25519Signer(verificationMethod: string, privateKey: () => KeyObject): Signer {
  return {
    id: verificationMethod,
    algorithm: 'Ed25519',
    // In the promise, so that a key that cannot be had is a rejection, not a throw.
    sign: ({ data }) =>
      Promise.resolve().then(() => new Uint8Array(sign(null, data, privateKey()))),
  };
}
