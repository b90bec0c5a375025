import {
  compactVerify,
  decodeProtectedHeader,
  importJWK,
  type ProtectedHeaderParameters,
} from 'jose';
import { type JoseSigningKey, type JwsAlgorithm } from './algorithms.js';
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

/** Whether `compact`'s signature verifies with `jwk` under `alg` (the only algorithm allowed). */
export async function jwsVerifies(
  compact: string,
  jwk: PublicJwk,
  alg: JwsAlgorithm,
): Promise<boolean> {
  try {
    await compactVerify(compact, await importedPublicKey(jwk, alg), { algorithms: [alg] });
    return true;
  } catch {
    return false;
  }
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

type ImportedKey = Awaited<ReturnType<typeof importJWK>>;

/** How many imported public keys `importedPublicKey` keeps. */
export const maxImportedPublicKeys = 1_000;

/** Public material only, bounded: the least recently used key is imported again when next met. */
const importedPublicKeys = new LRUCache<string, ImportedKey>({ max: maxImportedPublicKeys });

/**
 * `jwk` imported for `alg`, once per key and algorithm: a verifier meets the same issuers' keys (our own
 * tenants' among them) again and again, and an import costs about half a verification. Rejects as jose's
 * `importJWK` does, keeping nothing then.
 */
export async function importedPublicKey(jwk: PublicJwk, alg: JwsAlgorithm): Promise<ImportedKey> {
  // The RFC 7638 members only: what the entry is found by is all that is imported.
  const members =
    jwk.kty === 'EC'
      ? { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y }
      : { kty: jwk.kty, crv: jwk.crv, x: jwk.x };
  const id = JSON.stringify([alg, members]);
  const kept = importedPublicKeys.get(id);
  if (kept !== undefined) return kept;
  const key = await importJWK(members, alg);
  importedPublicKeys.set(id, key);
  return key;
}
