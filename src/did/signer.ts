import { createPrivateKey, sign } from 'node:crypto';

/**
 * A signer in the shape the Data Integrity libraries expect, for an Ed25519 key the caller unseals on
 * each signature: no library ever holds the private key. The seed buffer is wiped after the signature;
 * its JWK text and the key object, like any JavaScript string or object, are left to the collector.
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
