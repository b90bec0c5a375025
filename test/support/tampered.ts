/**
 * A compact JWS (or JWT) with one bit of its signature flipped: always another signature. Replacing
 * the last base64url characters is not: their low bits may lie past the signature's last byte.
 */
export function withFlippedSignatureBit(jws: string): string {
  const [header, payload, signature] = jws.split('.');
  const bytes = Buffer.from(signature, 'base64url');
  bytes[0] ^= 1;
  return `${header}.${payload}.${bytes.toString('base64url')}`;
}
