import { p256 } from '@noble/curves/nist.js';
import { base58 } from '@scure/base';
import { privateJwkMembers, type OkpPublicJwk, type PublicJwk } from './jwk.js';

/** Multicodec prefixes (unsigned varint) of the key types a did:key can carry. */
export const ed25519PublicKeyCodec = Uint8Array.of(0xed, 0x01);
export const x25519PublicKeyCodec = Uint8Array.of(0xec, 0x01);
/** p256-pub (0x1200), followed by the 33-byte compressed point. */
export const p256PublicKeyCodec = Uint8Array.of(0x80, 0x24);

/** `z` + base58btc(multicodec + raw key): the multibase form did:key uses. */
export function toMultibase(codec: Uint8Array, rawKey: Uint8Array): string {
  const bytes = new Uint8Array(codec.length + rawKey.length);
  bytes.set(codec);
  bytes.set(rawKey, codec.length);
  return `z${base58.encode(bytes)}`;
}

/** The raw Ed25519 public key a `did:key:z6Mk…` carries, or undefined when it carries none. */
export function ed25519PublicKeyOfDidKey(did: string): Uint8Array | undefined {
  return keyOfDidKey(did, ed25519PublicKeyCodec, 32);
}

/** The compressed P-256 point a `did:key:zDn…` carries, when it is a point of the curve. */
export function p256PublicKeyOfDidKey(did: string): Uint8Array | undefined {
  const point = keyOfDidKey(did, p256PublicKeyCodec, 33);
  if (point === undefined) return undefined;
  try {
    p256.Point.fromBytes(point).assertValidity();
  } catch {
    return undefined;
  }
  return point;
}

/** The key after `codec` in a did:key of this one key type and length, or undefined. */
function keyOfDidKey(did: string, codec: Uint8Array, length: number): Uint8Array | undefined {
  // Base58 decoding is quadratic in the length: a did:key of any supported key is under 60 characters.
  const match = /^did:key:z([1-9A-HJ-NP-Za-km-z]{40,60})$/.exec(did);
  if (match === null) return undefined;
  let bytes: Uint8Array;
  try {
    bytes = base58.decode(match[1]);
  } catch {
    return undefined;
  }
  const [first, second] = codec;
  if (bytes.length !== codec.length + length || bytes[0] !== first || bytes[1] !== second) {
    return undefined;
  }
  return bytes.slice(codec.length);
}

/** The key a `did:key` carries as a JWK: an Ed25519 (`z6Mk…`) or a P-256 (`zDn…`) key, or undefined. */
export function jwkOfDidKey(did: string): PublicJwk | undefined {
  const ed25519 = ed25519PublicKeyOfDidKey(did);
  if (ed25519 !== undefined) return ed25519Jwk(ed25519);
  const point = p256PublicKeyOfDidKey(did);
  if (point === undefined) return undefined;
  const uncompressed = p256.Point.fromBytes(point).toBytes(false);
  return {
    kty: 'EC',
    crv: 'P-256',
    x: Buffer.from(uncompressed.subarray(1, 33)).toString('base64url'),
    y: Buffer.from(uncompressed.subarray(33)).toString('base64url'),
  };
}

/** A raw Ed25519 public key as an OKP JWK (RFC 8037 §2). */
export function ed25519Jwk(publicKey: Uint8Array): OkpPublicJwk {
  return { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(publicKey).toString('base64url') };
}

/** A did:jwk's identifier is a base64url JWK: a public P-256 or Ed25519 key is under 200 characters. */
export const maxDidJwkIdentifierChars = 512;

/**
 * The JSON object a `did:jwk:<base64url JWK>` carries (did:jwk §2.2, "Read"), not yet checked as a key,
 * or why it carries none.
 */
export function jwkOfDidJwk(did: string): Record<string, unknown> | string {
  const identifier = /^did:jwk:([A-Za-z0-9_-]+)$/.exec(did)?.[1];
  if (identifier === undefined || identifier.length > maxDidJwkIdentifierChars) {
    return `a did:jwk is 'did:jwk:' and a base64url JWK of at most ${maxDidJwkIdentifierChars} characters`;
  }
  let jwk: unknown;
  try {
    jwk = JSON.parse(Buffer.from(identifier, 'base64url').toString('utf8'));
  } catch {
    return 'its identifier is not the base64url of a JSON object';
  }
  if (typeof jwk !== 'object' || jwk === null || Array.isArray(jwk)) {
    return 'its identifier is not the base64url of a JSON object';
  }
  return jwk as Record<string, unknown>;
}

/** `did:jwk:` + base64url of the JWK's JSON without private members, in lexicographic order (did:jwk §2.1). */
export function didJwkOf(jwk: Record<string, unknown>): string {
  const sorted = Object.fromEntries(
    Object.keys(jwk)
      .filter((name) => !privateJwkMembers.includes(name))
      .sort()
      .map((name) => [name, jwk[name]]),
  );
  return `did:jwk:${Buffer.from(JSON.stringify(sorted), 'utf8').toString('base64url')}`;
}
