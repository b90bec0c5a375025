import { createPrivateKey, generateKeyPair, sign } from 'node:crypto';
import { promisify } from 'node:util';
import { type PublicJwk } from './tenant-signing-key.entity.js';

const generateKeyPairAsync = promisify(generateKeyPair);

/** A new P-256 key pair: the public JWK and the 32-byte private scalar, which the caller wipes. */
export async function newP256KeyPair(): Promise<{ publicJwk: PublicJwk; d: Buffer }> {
  const { privateKey } = await generateKeyPairAsync('ec', { namedCurve: 'P-256' });
  const { x, y, d } = privateKey.export({ format: 'jwk' });
  if (x === undefined || y === undefined || d === undefined) {
    throw new Error('P-256 key export returned no key material');
  }
  return { publicJwk: { kty: 'EC', crv: 'P-256', x, y }, d: Buffer.from(d, 'base64url') };
}

/**
 * A JOSE ES256 signature (RFC 7518 section 3.4: r || s, 64 bytes) with a private scalar the caller
 * unseals for this signature; the scalar is wiped after it.
 */
export function es256Sign(publicJwk: PublicJwk, d: Buffer, data: Uint8Array): Uint8Array {
  try {
    // As a JWK, not PKCS #8 DER: OpenSSL 3 imports DER through its decoder framework, far slower.
    const key = createPrivateKey({
      key: { ...publicJwk, d: d.toString('base64url') },
      format: 'jwk',
    });
    return new Uint8Array(sign('sha256', data, { key, dsaEncoding: 'ieee-p1363' }));
  } finally {
    d.fill(0);
  }
}
