import { type JWK } from 'jose';
import { acceptedJwsAlgs, isJwsAlgorithm, type JwsAlgorithm } from '../../jose/algorithms.js';
import { publicJwkFor, type PublicJwk } from '../../jose/jwk.js';

/** A key an issuer publishes (not yet checked), with the `kid` and `alg` it names it by. */
export type IssuerJwk = JWK & { kid?: string; alg?: string };

/** The most of a received string a reason quotes. */
export const quotedChars = 100;

/**
 * A received value as a reason may name it: a string quoted and cut at `quotedChars`, anything else by
 * its kind alone. Never stringified: a value nested thousands deep would throw, and it is the sender's.
 */
export function shown(value: unknown): string {
  if (typeof value === 'string') {
    return value.length > quotedChars ? `'${value.slice(0, quotedChars)}…'` : `'${value}'`;
  }
  if (value === undefined) return 'no value';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** Why `alg` may not sign an SD-JWT VC, its KB-JWT or a Status List Token here, or undefined. */
export function algProblem(alg: unknown): string | undefined {
  return isJwsAlgorithm(alg)
    ? undefined
    : `is signed with ${shown(alg)}, not one of ${acceptedJwsAlgs.join(', ')}`;
}

/** The public members of a P-256 or Ed25519 JWK that suits `alg`, or why it holds none, in words. */
export function publicKeyFor(jwk: unknown, alg: JwsAlgorithm): PublicJwk | string {
  const key = publicJwkFor(jwk, alg);
  if (key === 'not-an-object') return 'the key is not a JWK';
  if (key === 'private-members') return 'the key holds private members';
  if (key === 'wrong-key') {
    const { kty, crv } = jwk as Record<string, unknown>;
    return `the key (${shown(kty)} ${shown(crv)}) is not a public key for ${alg}`;
  }
  return key;
}
