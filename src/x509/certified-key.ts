import { X509Certificate } from 'node:crypto';

/** The public key a certificate certifies, as a JWK (`kty`, `crv`, `x`, `y` for EC): to compare keys. */
export function certifiedPublicJwk(der: Buffer): Record<string, unknown> {
  // Node's certificate hands a public KeyObject already: it exports without createPublicKey.
  return new X509Certificate(der).publicKey.export({ format: 'jwk' });
}
