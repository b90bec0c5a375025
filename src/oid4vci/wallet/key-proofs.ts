import { p256 } from '@noble/curves/nist.js';
import { createHash } from 'node:crypto';
import {
  calculateJwkThumbprint,
  decodeProtectedHeader,
  importJWK,
  jwtVerify,
  type JWK,
  type JWTPayload,
  type ProtectedHeaderParameters,
} from 'jose';
import { ed25519PublicKeyOfDidKey, p256PublicKeyOfDidKey } from '../../did/did-key.js';

/** What a JWT proof is checked for; each check names itself in the refusal. */
export class ProofRefusal extends Error {}

/** Proofs and DPoP proofs are a header, a small payload and a signature: longer is not one. */
export const maxProofChars = 4096;

/** How far a proof's `iat` may lie behind us (the nonce bounds it too) or ahead (clock skew). */
export const proofMaxAgeSeconds = 300;
export const proofMaxSkewSeconds = 60;

/** The key a proof was made with, and the DID when its header named the key by a DID URL. */
export interface ProvedKey {
  jwk: JWK;
  did?: string;
}

const algorithms = ['ES256', 'EdDSA'] as const;
type Algorithm = (typeof algorithms)[number];
/** JWK members that only a private or symmetric key has (RFC 7518 §6). */
const privateMembers = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

/** The header of a compact JWS, refused unless it is one of ours: `typ` and a supported `alg`. */
function headerOf(jwt: string, typ: string, allowed: readonly Algorithm[]) {
  if (jwt.length > maxProofChars || jwt.split('.').length !== 3)
    throw new ProofRefusal(`is not a compact JWT of at most ${maxProofChars} characters`);
  let header: ProtectedHeaderParameters;
  try {
    header = decodeProtectedHeader(jwt);
  } catch {
    throw new ProofRefusal('has a header that is not base64url JSON');
  }
  if (header.typ !== typ) throw new ProofRefusal(`must have typ ${typ}`);
  if (!(allowed as readonly unknown[]).includes(header.alg))
    throw new ProofRefusal(`must be signed with ${allowed.join(' or ')}`);
  return header as ProtectedHeaderParameters & { alg: Algorithm };
}

/** A public JWK of the algorithm's key type, with its public members only (RFC 7517 §4). */
export function publicJwkOf(value: unknown, alg: Algorithm): JWK {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new ProofRefusal('has a jwk that is not a JSON object');
  const jwk = value as Record<string, unknown>;
  if (privateMembers.some((member) => member in jwk))
    throw new ProofRefusal('has a jwk with private key members');
  const fits =
    alg === 'ES256'
      ? jwk.kty === 'EC' &&
        jwk.crv === 'P-256' &&
        typeof jwk.x === 'string' &&
        typeof jwk.y === 'string'
      : jwk.kty === 'OKP' && jwk.crv === 'Ed25519' && typeof jwk.x === 'string';
  if (!fits) throw new ProofRefusal(`has a jwk that is not a ${alg} public key`);
  const { kty, crv, x, y } = jwk as Record<string, string>;
  return alg === 'ES256' ? { kty, crv, x, y } : { kty, crv, x };
}

/** Verifies the signature and answers the payload; jose checks `typ`, `iat` shape and audience. */
async function verified(
  jwt: string,
  jwk: JWK,
  alg: Algorithm,
  typ: string,
  now: number,
  audience?: string,
): Promise<JWTPayload> {
  try {
    const key = await importJWK(jwk, alg);
    const { payload } = await jwtVerify(jwt, key, {
      algorithms: [alg],
      typ,
      ...(audience === undefined ? {} : { audience }),
      // Our clock (tests move it); the window of iat is checked below.
      currentDate: new Date(now),
      clockTolerance: proofMaxSkewSeconds,
    });
    return payload;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ERR_JWT_CLAIM_VALIDATION_FAILED')
      throw new ProofRefusal(`has a wrong ${(error as { claim?: string }).claim ?? 'claim'}`);
    throw new ProofRefusal('has a signature that does not verify with its key');
  }
}

function requireFreshIat(payload: JWTPayload, nowSeconds: number): void {
  const iat = payload.iat;
  if (typeof iat !== 'number' || !Number.isFinite(iat)) throw new ProofRefusal('must have an iat');
  if (iat > nowSeconds + proofMaxSkewSeconds || iat < nowSeconds - proofMaxAgeSeconds)
    throw new ProofRefusal('has an iat too far from now');
}

/** base64url(SHA-256(access token)): the DPoP proof's `ath` (RFC 9449 §4.2). */
export function accessTokenHashOf(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}

export interface DpopExpectation {
  method: string;
  /** The endpoint's URL without query or fragment (RFC 9449 §4.3). */
  url: string;
  now: number;
  /** At a protected resource: the token the proof must name in `ath`. */
  accessToken?: string;
}

/**
 * A DPoP proof (RFC 9449 §4.3): typ dpop+jwt, ES256 (HAIP) or EdDSA, its public key in `jwk`, the
 * request's method and URL, a fresh `iat`, a `jti`, the token's hash at a resource. Answers the key's
 * thumbprint (RFC 7638), the `jkt` a token is bound to.
 */
export async function verifyDpopProof(proof: string, expected: DpopExpectation): Promise<string> {
  const header = headerOf(proof, 'dpop+jwt', algorithms);
  const jwk = publicJwkOf(header.jwk, header.alg);
  const payload = await verified(proof, jwk, header.alg, 'dpop+jwt', expected.now);
  if (payload.htm !== expected.method) throw new ProofRefusal(`must have htm ${expected.method}`);
  if (payload.htu !== expected.url) throw new ProofRefusal('must have htu the endpoint URL');
  requireFreshIat(payload, Math.floor(expected.now / 1000));
  if (typeof payload.jti !== 'string' || payload.jti.length === 0 || payload.jti.length > 256)
    throw new ProofRefusal('must have a jti');
  if (expected.accessToken !== undefined && payload.ath !== accessTokenHashOf(expected.accessToken))
    throw new ProofRefusal('must have ath the hash of the access token');
  return calculateJwkThumbprint(jwk, 'sha256');
}

export interface KeyProofExpectation {
  /** The credential issuer identifier: the proof's `aud`. */
  issuer: string;
  now: number;
  /** Whether the key may be named by a DID URL (`kid`): the configuration's binding methods. */
  didAllowed: boolean;
}

/** A JWT key proof (OpenID4VCI 1.0 Appendix F.1) verified; answers its key and its `nonce`. */
export async function verifyKeyProof(
  jwt: string,
  expected: KeyProofExpectation,
): Promise<ProvedKey & { nonce: string }> {
  const header = headerOf(jwt, 'openid4vci-proof+jwt', algorithms);
  const named = [
    header.jwk,
    header.kid,
    header.x5c,
    (header as { trust_chain?: unknown }).trust_chain,
  ];
  if (named.filter((member) => member !== undefined).length !== 1 || header.x5c !== undefined)
    throw new ProofRefusal('must name its key by exactly one of jwk or kid');
  let key: ProvedKey;
  if (header.jwk !== undefined) key = { jwk: publicJwkOf(header.jwk, header.alg) };
  else if (!expected.didAllowed)
    throw new ProofRefusal('must carry its key in jwk: this configuration binds to JWKs only');
  else if (typeof header.kid !== 'string' || header.kid.length > maxProofChars)
    throw new ProofRefusal('has a kid that is not a DID URL');
  else key = keyOfDidUrl(header.kid, header.alg);
  const payload = await verified(
    jwt,
    key.jwk,
    header.alg,
    'openid4vci-proof+jwt',
    expected.now,
    expected.issuer,
  );
  requireFreshIat(payload, Math.floor(expected.now / 1000));
  const nonce = (payload as { nonce?: unknown }).nonce;
  if (typeof nonce !== 'string' || nonce.length === 0 || nonce.length > 256)
    throw new ProofRefusal('must have the c_nonce as nonce');
  return { ...key, nonce };
}

/** A did:key or did:jwk URL resolved here, without a network (did:key §3.1, did:jwk §2.2). */
export function keyOfDidUrl(kid: string, alg: Algorithm): ProvedKey {
  const [did, fragment, ...rest] = kid.split('#');
  if (fragment === undefined || rest.length > 0)
    throw new ProofRefusal('has a kid that is not a DID URL');
  if (did.startsWith('did:key:')) {
    if (fragment !== did.slice('did:key:'.length))
      throw new ProofRefusal('has a did:key kid whose fragment is not its key');
    if (alg === 'ES256') {
      const point = p256PublicKeyOfDidKey(did);
      if (point === undefined) throw new ProofRefusal('has a kid that is not a P-256 did:key');
      const raw = p256.Point.fromBytes(point).toBytes(false);
      const coordinate = (from: number) =>
        Buffer.from(raw.slice(from, from + 32)).toString('base64url');
      return { jwk: { kty: 'EC', crv: 'P-256', x: coordinate(1), y: coordinate(33) }, did };
    }
    const publicKey = ed25519PublicKeyOfDidKey(did);
    if (publicKey === undefined) throw new ProofRefusal('has a kid that is not an Ed25519 did:key');
    return {
      jwk: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(publicKey).toString('base64url') },
      did,
    };
  }
  if (did.startsWith('did:jwk:')) {
    const identifier = did.slice('did:jwk:'.length);
    if (fragment !== '0' || !/^[A-Za-z0-9_-]{1,512}$/.test(identifier))
      throw new ProofRefusal('has a did:jwk kid that is not did:jwk:<base64url JWK>#0');
    let jwk: unknown;
    try {
      jwk = JSON.parse(Buffer.from(identifier, 'base64url').toString('utf8'));
    } catch {
      throw new ProofRefusal('has a did:jwk kid whose identifier is not a JWK');
    }
    return { jwk: publicJwkOf(jwk, alg), did };
  }
  throw new ProofRefusal('has a kid that is neither a did:key nor a did:jwk URL');
}
