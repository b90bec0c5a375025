import { createPrivateKey, sign } from 'node:crypto';

/** PKCS #8 DER header of an Ed25519 private key (RFC 8410); the 32-byte seed follows it. */
const ed25519Pkcs8Prefix = Buffer.from('302e020100300506032b657004220420', 'hex');

/**
 * A signer in the shape the Data Integrity libraries expect, for an Ed25519 key the caller unseals on
 * each signature: the seed lives only for the signature and is wiped after it; no library ever holds
 * the private key.
 */
export function ed25519Signer(verificationMethod: string, openSeed: () => Buffer): Signer {
  return {
    id: verificationMethod,
    algorithm: 'Ed25519',
    sign: ({ data }) => {
      const seed = openSeed();
      const der = Buffer.concat([ed25519Pkcs8Prefix, seed]);
      try {
        const key = createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
        return Promise.resolve(new Uint8Array(sign(null, data, key)));
      } finally {
        seed.fill(0);
        der.fill(0);
      }
    },
  };
}
