import { createPrivateKey, generateKeyPair, sign, type KeyObject } from 'node:crypto';
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
 * The P-256 private key of a public JWK and its private scalar, which the caller wipes. As a JWK, not
 * PKCS #8 DER: OpenSSL 3 imports DER through its decoder framework, far slower.
 */
export function p256PrivateKey(publicJwk: PublicJwk, d: Buffer): KeyObject {
  return createPrivateKey({ key: { ...publicJwk, d: d.toString('base64url') }, format: 'jwk' });
}

/** A JOSE ES256 signature (RFC 7518 section 3.4: r || s, 64 bytes). */
export function es256Sign(key: KeyObject, data: Uint8Array): Uint8Array {
  return new Uint8Array(sign('sha256', data, { key, dsaEncoding: 'ieee-p1363' }));
}
