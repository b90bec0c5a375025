import { createHash } from 'node:crypto';
import { jwsAlgorithms, type JwsAlgorithm } from './algorithms.js';

export type EcPublicJwk = { kty: 'EC'; crv: 'P-256'; x: string; y: string };
export type OkpPublicJwk = { kty: 'OKP'; crv: 'Ed25519'; x: string };
/** A public key of one of the algorithms of `jwsAlgorithms`, with its public members only. */
export type PublicJwk = EcPublicJwk | OkpPublicJwk;

/** JWK members only a private or symmetric key has (RFC 7518 §6.2.2, §6.3.2, §6.4; RFC 8037 §2). */
export const privateJwkMembers: readonly string[] = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

/** A P-256 or Ed25519 coordinate is 43 base64url characters: a far longer one is no such key. */
const maxCoordinateChars = 64;

/** Why a value is not the public key wanted: not a JSON object, holding private members, another key. */
export type JwkProblem = 'not-an-object' | 'private-members' | 'wrong-key';

/**
 * The P-256 or Ed25519 public key a received JWK holds, reduced to its public members (RFC 7517 §4:
 * `kid`, `alg`, `use` and the like are dropped), or why it holds none. A JWK with private members is a
 * leaked key and is refused, not cleaned.
 */
export function publicJwkOf(value: unknown): PublicJwk | JwkProblem {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'not-an-object';
  const jwk = value as Record<string, unknown>;
  if (privateJwkMembers.some((member) => member in jwk)) return 'private-members';
  const { kty, crv, x, y } = jwk;
  const coordinate = (member: unknown): member is string =>
    typeof member === 'string' && member.length > 0 && member.length <= maxCoordinateChars;
  if (kty === 'EC' && crv === 'P-256' && coordinate(x) && coordinate(y)) {
    return { kty, crv, x, y };
  }
  if (kty === 'OKP' && crv === 'Ed25519' && coordinate(x) && y === undefined) {
    return { kty, crv, x };
  }
  return 'wrong-key';
}

/** As `publicJwkOf`, for a key that must also be of `alg`'s type (`jwsAlgorithms`). */
export function publicJwkFor(value: unknown, alg: JwsAlgorithm): PublicJwk | JwkProblem {
  const jwk = publicJwkOf(value);
  if (typeof jwk === 'string') return jwk;
  const wanted = jwsAlgorithms[alg];
  return jwk.kty === wanted.kty && jwk.crv === wanted.crv ? jwk : 'wrong-key';
}

/** The JWS algorithm that suits a public key: EdDSA for Ed25519, ES256 for P-256. */
export function algorithmOf(jwk: PublicJwk): 'ES256' | 'EdDSA' {
  return jwk.kty === 'OKP' ? 'EdDSA' : 'ES256';
}

/** An RSA public key as the embedded token issuer publishes it (RFC 7518 §6.3.1). */
export type RsaPublicJwk = { kty: 'RSA'; n: string; e: string };

/**
 * The RFC 7638 thumbprint (SHA-256, base64url) of a public key: the JSON of its required members in
 * lexicographic order (§3.2; RFC 8037 §2 for OKP), whatever else the JWK holds.
 */
export function jwkThumbprint(jwk: PublicJwk | RsaPublicJwk): string {
  const required =
    jwk.kty === 'RSA'
      ? { e: jwk.e, kty: jwk.kty, n: jwk.n }
      : jwk.kty === 'EC'
        ? { crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y }
        : { crv: jwk.crv, kty: jwk.kty, x: jwk.x };
  return createHash('sha256').update(JSON.stringify(required), 'utf8').digest('base64url');
}
