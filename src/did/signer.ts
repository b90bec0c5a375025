import { createPrivateKey, sign } from 'node:crypto';

/**
 * A signer in the shape the Data Integrity libraries expect, for an Ed25519 key the caller unseals on
 * each signature: the seed lives only for the signature and is wiped after it; no library ever holds
 * the private key.
 */
export function ed25519Signer(
  verificationMethod: string,
  publicKey: Uint8Array,
  openSeed: () => Buffer,
): Signer {
  const x = Buffer.from(publicKey).toString('base64url');
  return {
    id: verificationMethod,
    algorithm: 'Ed25519',
    sign: ({ data }) => {
      const seed = openSeed();
      try {
        // As a JWK, not PKCS #8 DER: OpenSSL 3 imports DER through its decoder framework, ten times slower.
        const key = createPrivateKey({
          key: { kty: 'OKP', crv: 'Ed25519', x, d: seed.toString('base64url') },
          format: 'jwk',
        });
        return Promise.resolve(new Uint8Array(sign(null, data, key)));
      } finally {
        seed.fill(0);
      }
    },
  };
}
