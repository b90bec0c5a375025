/**
 * The JWS algorithms this service signs with and accepts, each with the key it needs: ES256 on P-256
 * (RFC 7518 §3.4, the algorithm HAIP 1.0 requires) and Ed25519 as `EdDSA` (RFC 8037 §3.1) or by its
 * fully specified name `Ed25519` (RFC 9864). Never `none`, never a MAC.
 */
export const jwsAlgorithms = {
  ES256: { kty: 'EC', crv: 'P-256' },
  EdDSA: { kty: 'OKP', crv: 'Ed25519' },
  Ed25519: { kty: 'OKP', crv: 'Ed25519' },
} as const;

export type JwsAlgorithm = keyof typeof jwsAlgorithms;

export const acceptedJwsAlgs = Object.keys(jwsAlgorithms) as readonly JwsAlgorithm[];

export function isJwsAlgorithm(value: unknown): value is JwsAlgorithm {
  return typeof value === 'string' && Object.hasOwn(jwsAlgorithms, value);
}

/** What signs a JWS here: the `kid` and `alg` its header names, and the signer of the signing input. */
export interface JoseSigningKey {
  kid: string;
  alg: 'ES256' | 'EdDSA';
  /** The JWS signature of the data (ES256: IEEE P1363 r || s, 64 bytes; EdDSA: 64 bytes). */
  sign(data: Uint8Array): Promise<Uint8Array>;
  /**
   * The key's certificate chain for the header's `x5c` (RFC 7515 §4.1.6): standard base64 DER, leaf
   * first, without the root (HAIP 1.0); absent for a key no certificate names.
   */
  x5c?: readonly string[];
}
