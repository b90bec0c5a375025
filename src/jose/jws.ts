import crypto, { createPublicKey, KeyObject } from 'node:crypto';
import { decodeProtectedHeader, type ProtectedHeaderParameters } from 'jose';
import {
  isJwsAlgorithm,
  jwsAlgorithms,
  type JoseSigningKey,
  type JwsAlgorithm,
} from './algorithms.js';
import { type PublicJwk } from './jwk.js';
import { LRUCache } from 'lru-cache';

type Json = Record<string, unknown>;

/** A compact JWS taken apart (header and payload JSON objects), not yet verified. */
export interface DecodedJws {
  header: Json;
  payload: Json;
}

/** The header and payload of a compact JWS, or why it is not one. */
export function decodeJws(compact: string): DecodedJws | string {
  const parts = compactParts(compact);
  if (parts === undefined) return 'is not a compact JWS (three base64url parts)';
  const header = jsonObject(parts[0]);
  const payload = jsonObject(parts[1]);
  if (header === undefined) return 'has a header that is not a JSON object';
  if (payload === undefined) return 'has a payload that is not a JSON object';
  return { header, payload };
}

/**
 * The protected header of a compact JWT of at most `maxChars` characters (bounded before anything is
 * decoded), with `typ` and one of the `allowed` algorithms, or why it is not one.
 */
export function typedJwtHeader<A extends string>(
  jwt: string,
  typ: string,
  allowed: readonly A[],
  maxChars: number,
): (ProtectedHeaderParameters & { alg: A }) | string {
  if (jwt.length > maxChars || jwt.split('.').length !== 3)
    return `is not a compact JWT of at most ${maxChars} characters`;
  let header: ProtectedHeaderParameters;
  try {
    header = decodeProtectedHeader(jwt);
  } catch {
    return 'has a header that is not base64url JSON';
  }
  if (header.typ !== typ) return `must have typ ${typ}`;
  if (!(allowed as readonly unknown[]).includes(header.alg))
    return `must be signed with ${allowed.join(' or ')}`;
  return header as ProtectedHeaderParameters & { alg: A };
}

/**
 * The protected header `key` signs under: `typ`, `alg`, `kid`, and `x5c` when a certificate names the
 * key, so that a verifier may find it by `kid` (JWT VC Issuer Metadata) or by the chain (HAIP 1.0).
 */
export function signingHeader(
  key: JoseSigningKey,
  typ: string,
): Json & { alg: string; typ: string; kid: string } {
  return {
    typ,
    alg: key.alg,
    kid: key.kid,
    ...(key.x5c === undefined ? {} : { x5c: [...key.x5c] }),
  };
}

/**
 * A compact JWS (RFC 7515 §7.1) of a JSON payload, signed by a signer of the signing input: the
 * tenant's keys sign through the key vault, so the signature is theirs to make, the serialisation ours.
 */
export async function signCompactJws(
  header: Json & { alg: string },
  payload: Json,
  sign: (data: Uint8Array) => Promise<Uint8Array>,
): Promise<string> {
  const input = `${base64urlJson(header)}.${base64urlJson(payload)}`;
  const signature = await sign(Buffer.from(input, 'utf8'));
  return `${input}.${Buffer.from(signature).toString('base64url')}`;
}

/**
 * Whether `compact`'s signature verifies with `jwk` under `alg`, the only algorithm allowed (its header
 * must name it, with no `crit` extension: none is understood here). Node's own verification of a kept
 * `KeyObject`: WebCrypto's import and asynchronous job cost about twice the CPU (docs/performance.md).
 */
export function jwsVerifies(compact: string, jwk: PublicJwk, alg: JwsAlgorithm): boolean {
  return signedParts(compact, jwk, alg) !== undefined;
}

/** The header and payload of `compact` once its signature verifies as `jwsVerifies` says, else undefined. */
export function verifiedJws(
  compact: string,
  jwk: PublicJwk,
  alg: JwsAlgorithm,
): DecodedJws | undefined {
  const signed = signedParts(compact, jwk, alg);
  if (signed === undefined) return undefined;
  const payload = jsonObject(signed.parts[1]);
  return payload === undefined ? undefined : { header: signed.header, payload };
}

/** `compact`'s parts and header when its signature verifies (`jwsVerifies`), else undefined. */
function signedParts(
  compact: string,
  jwk: PublicJwk,
  alg: JwsAlgorithm,
): { parts: [string, string, string]; header: Json } | undefined {
  // A caller may pass a header's `alg` as it came: only the table's algorithms verify anything.
  if (!isJwsAlgorithm(alg)) return undefined;
  const parts = compactParts(compact);
  if (parts === undefined) return undefined;
  const header = jsonObject(parts[0]);
  if (header?.alg !== alg || header.crit !== undefined) return undefined;
  const wanted = jwsAlgorithms[alg];
  if (jwk.kty !== wanted.kty || jwk.crv !== wanted.crv) return undefined;
  const signature = Buffer.from(parts[2], 'base64url');
  // ES256 (IEEE P1363 r || s) and Ed25519 signatures are both 64 bytes.
  if (signature.length !== 64) return undefined;
  let verified: boolean;
  try {
    const key = publicKeyObject(jwk);
    const input = Buffer.from(`${parts[0]}.${parts[1]}`, 'ascii');
    // Through the module object, so that a test can count the verifications.
    verified =
      jwk.kty === 'EC'
        ? crypto.verify('sha256', input, { key, dsaEncoding: 'ieee-p1363' }, signature)
        : crypto.verify(null, input, key, signature);
  } catch {
    return undefined;
  }
  return verified ? { parts, header } : undefined;
}

/** The three base64url parts of a compact JWS, or undefined when it has not exactly those. */
function compactParts(compact: string): [string, string, string] | undefined {
  const parts = compact.split('.');
  return parts.length === 3 && parts.every((part) => /^[A-Za-z0-9_-]+$/.test(part))
    ? (parts as [string, string, string])
    : undefined;
}

function base64urlJson(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
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

/** How many public keys `publicKeyObject` keeps. */
export const maxPublicKeys = 1_000;

/** Public material only, bounded: the least recently used key is made again when next met. */
const publicKeys = new LRUCache<string, KeyObject>({ max: maxPublicKeys });

/**
 * `jwk` as a Node `KeyObject`, made once per key: a verifier meets the same issuers' keys (our own
 * tenants' among them) again and again. Throws for a key Node refuses (a point off the curve), keeping
 * nothing then.
 */
export function publicKeyObject(jwk: PublicJwk): KeyObject {
  // The RFC 7638 members only: what the entry is found by is all that is made into the key.
  const members =
    jwk.kty === 'EC'
      ? { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y }
      : { kty: jwk.kty, crv: jwk.crv, x: jwk.x };
  const id = JSON.stringify(members);
  const kept = publicKeys.get(id);
  // instanceof rather than a check for undefined: the built JavaScript, type-checked with the
  // benchmark's scripts, then knows the type too.
  if (kept instanceof KeyObject) return kept;
  const key = createPublicKey({ key: members, format: 'jwk' });
  publicKeys.set(id, key);
  return key;
}
