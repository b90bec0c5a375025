import { compactVerify, importJWK, type JWK } from 'jose';

type Json = Record<string, unknown>;

/** A key an issuer publishes, with the `kid` and `alg` it names it by. */
export type IssuerJwk = JWK & { kid?: string; alg?: string };

/**
 * The JWS algorithms an SD-JWT VC, its KB-JWT or a Status List Token may be signed with (HAIP 1.0):
 * ES256 on P-256, and Ed25519 as `EdDSA` or its fully specified name. Never `none`, never HS*.
 */
export const acceptedJwsAlgs = ['ES256', 'EdDSA', 'Ed25519'] as const;

/** A compact JWS taken apart (header and payload JSON objects), not yet verified. */
export interface DecodedJws {
  header: Json;
  payload: Json;
}

/** The header and payload of a compact JWS, or why it is not one. */
export function decodeJws(compact: string): DecodedJws | string {
  const parts = compact.split('.');
  if (parts.length !== 3 || !parts.every((part) => /^[A-Za-z0-9_-]+$/.test(part))) {
    return 'is not a compact JWS (three base64url parts)';
  }
  const header = jsonObject(parts[0]);
  const payload = jsonObject(parts[1]);
  if (header === undefined) return 'has a header that is not a JSON object';
  if (payload === undefined) return 'has a payload that is not a JSON object';
  return { header, payload };
}

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

/** Why `alg` may not sign here, or undefined. */
export function algProblem(alg: unknown): string | undefined {
  return (acceptedJwsAlgs as readonly unknown[]).includes(alg)
    ? undefined
    : `is signed with ${shown(alg)}, not one of ${acceptedJwsAlgs.join(', ')}`;
}

/** Only the public members of a P-256 or Ed25519 JWK that suits `alg`, or why it does not. */
export function publicKeyFor(jwk: unknown, alg: string): JWK | string {
  if (typeof jwk !== 'object' || jwk === null) return 'the key is not a JWK';
  const { kty, crv, x, y } = jwk as Json;
  const short = (value: unknown) => typeof value === 'string' && value.length <= 64;
  if (alg === 'ES256' && kty === 'EC' && crv === 'P-256' && short(x) && short(y)) {
    return { kty, crv, x: x as string, y: y as string };
  }
  if (alg !== 'ES256' && kty === 'OKP' && crv === 'Ed25519' && short(x) && y === undefined) {
    return { kty, crv, x: x as string };
  }
  return `the key (${shown(kty)} ${shown(crv)}) is not a public key for ${alg}`;
}

/** Whether `compact`'s signature verifies with `jwk` under its header's `alg`. */
export async function signatureVerifies(compact: string, jwk: JWK, alg: string): Promise<boolean> {
  try {
    await compactVerify(compact, await importJWK(jwk, alg), { algorithms: [alg] });
    return true;
  } catch {
    return false;
  }
}

function jsonObject(part: string): Json | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Json)
      : undefined;
  } catch {
    return undefined;
  }
}
