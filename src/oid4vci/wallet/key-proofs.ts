import { createHash } from 'node:crypto';
import { type JWTPayload } from 'jose';
import { type JwsAlgorithm } from '../../jose/algorithms.js';
import { jwkOfDidJwk, jwkOfDidKey } from '../../jose/did-keys.js';
import { issuedAtProblem, issuedAtWindow } from '../../jose/issued-at.js';
import { jwkThumbprint, publicJwkFor, type PublicJwk } from '../../jose/jwk.js';
import { typedJwtHeader } from '../../jose/jws.js';
import { JwtRefusal, verifiedJwt } from '../../jose/jwt.js';

/** What a JWT proof is checked for; each check names itself in the refusal. */
export class ProofRefusal extends Error {}

/** Proofs and DPoP proofs are a header, a small payload and a signature: longer is not one. */
export const maxProofChars = 4096;
/** A key proof may carry a key attestation with its x5c chain in its header (Appendix D.1). */
export const maxKeyProofChars = 24 * 1024;

/** The key a proof was made with, and the DID when its header named the key by a DID URL. */
export interface ProvedKey {
  jwk: PublicJwk;
  did?: string;
}

/** What a wallet's proof may be signed with: ES256 (HAIP) or EdDSA. */
const algorithms = ['ES256', 'EdDSA'] as const satisfies readonly JwsAlgorithm[];
type Algorithm = (typeof algorithms)[number];

/** The header of a compact JWS, refused unless it is one of ours: `typ` and a supported `alg`. */
function headerOf(
  jwt: string,
  typ: string,
  allowed: readonly Algorithm[],
  maxChars = maxProofChars,
) {
  const header = typedJwtHeader(jwt, typ, allowed, maxChars);
  if (typeof header === 'string') throw new ProofRefusal(header);
  return header;
}

/** A public JWK of the algorithm's key type, with its public members only (RFC 7517 §4). */
export function proofJwkOf(value: unknown, alg: Algorithm): PublicJwk {
  const jwk = publicJwkFor(value, alg);
  if (jwk === 'not-an-object') throw new ProofRefusal('has a jwk that is not a JSON object');
  if (jwk === 'private-members') throw new ProofRefusal('has a jwk with private key members');
  if (jwk === 'wrong-key') throw new ProofRefusal(`has a jwk that is not a ${alg} public key`);
  return jwk;
}

/** Verifies the signature and answers the payload, with its `aud` when given; the caller checks `iat`. */
function verified(
  jwt: string,
  jwk: PublicJwk,
  alg: Algorithm,
  now: number,
  audience?: string,
): JWTPayload {
  try {
    return verifiedJwt(jwt, jwk, alg, {
      now,
      toleranceSeconds: issuedAtWindow.futureSeconds,
      ...(audience === undefined ? {} : { audience }),
    });
  } catch (error) {
    if (!(error instanceof JwtRefusal)) throw error;
    if (error.reason === 'signature')
      throw new ProofRefusal('has a signature that does not verify with its key');
    throw new ProofRefusal(`has a wrong ${error.claim ?? 'claim'}`);
  }
}

function requireFreshIat(payload: JWTPayload, nowSeconds: number): void {
  const problem = issuedAtProblem(payload.iat, nowSeconds);
  if (problem === 'missing') throw new ProofRefusal('must have an iat');
  if (problem === 'outside') throw new ProofRefusal('has an iat too far from now');
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

/** A verified DPoP proof: its key's thumbprint, and what replay and nonce checks read. */
export interface DpopProof {
  /** The key's RFC 7638 thumbprint, the `jkt` a token is bound to. */
  jkt: string;
  jti: string;
  iat: number;
  /** The server nonce it carries (RFC 9449 §8), if any. */
  nonce?: string;
}

/**
 * A DPoP proof (RFC 9449 §4.3): typ dpop+jwt, ES256 (HAIP) or EdDSA, its public key in `jwk`, the
 * request's method and URL, a fresh `iat`, a `jti`, the token's hash at a resource. The caller spends
 * its `jti` (RFC 9449 §11.1, docs/oid4vci.md).
 */
export function verifyDpopProof(proof: string, expected: DpopExpectation): DpopProof {
  const header = headerOf(proof, 'dpop+jwt', algorithms);
  const jwk = proofJwkOf(header.jwk, header.alg);
  const payload = verified(proof, jwk, header.alg, expected.now);
  if (payload.htm !== expected.method) throw new ProofRefusal(`must have htm ${expected.method}`);
  if (payload.htu !== expected.url) throw new ProofRefusal('must have htu the endpoint URL');
  requireFreshIat(payload, Math.floor(expected.now / 1000));
  if (typeof payload.jti !== 'string' || payload.jti.length === 0 || payload.jti.length > 256)
    throw new ProofRefusal('must have a jti');
  if (expected.accessToken !== undefined && payload.ath !== accessTokenHashOf(expected.accessToken))
    throw new ProofRefusal('must have ath the hash of the access token');
  const { nonce } = payload as { nonce?: unknown };
  return {
    jkt: jwkThumbprint(jwk),
    jti: payload.jti,
    iat: payload.iat!,
    ...(typeof nonce === 'string' && nonce.length <= 256 ? { nonce } : {}),
  };
}

export interface KeyProofExpectation {
  /** The credential issuer identifier: the proof's `aud`. */
  issuer: string;
  now: number;
  /** Whether the key may be named by a DID URL (`kid`): the configuration's binding methods. */
  didAllowed: boolean;
}

/**
 * A JWT key proof (OpenID4VCI 1.0 Appendix F.1) verified; answers its key, its `nonce` and the
 * `key_attestation` of its header, unchecked (Appendix D.1: the caller checks it when required).
 */
export function verifyKeyProof(
  jwt: string,
  expected: KeyProofExpectation,
): ProvedKey & { nonce: string; keyAttestation?: unknown } {
  const header = headerOf(jwt, 'openid4vci-proof+jwt', algorithms, maxKeyProofChars);
  const named = [
    header.jwk,
    header.kid,
    header.x5c,
    (header as { trust_chain?: unknown }).trust_chain,
  ];
  if (named.filter((member) => member !== undefined).length !== 1 || header.x5c !== undefined)
    throw new ProofRefusal('must name its key by exactly one of jwk or kid');
  let key: ProvedKey;
  if (header.jwk !== undefined) key = { jwk: proofJwkOf(header.jwk, header.alg) };
  else if (!expected.didAllowed)
    throw new ProofRefusal('must carry its key in jwk: this configuration binds to JWKs only');
  else if (typeof header.kid !== 'string' || header.kid.length > maxProofChars)
    throw new ProofRefusal('has a kid that is not a DID URL');
  else key = keyOfDidUrl(header.kid, header.alg);
  const payload = verified(jwt, key.jwk, header.alg, expected.now, expected.issuer);
  requireFreshIat(payload, Math.floor(expected.now / 1000));
  const nonce = (payload as { nonce?: unknown }).nonce;
  if (typeof nonce !== 'string' || nonce.length === 0 || nonce.length > 256)
    throw new ProofRefusal('must have the c_nonce as nonce');
  const keyAttestation = (header as { key_attestation?: unknown }).key_attestation;
  return { ...key, nonce, ...(keyAttestation === undefined ? {} : { keyAttestation }) };
}

/** A did:key or did:jwk URL resolved here, without a network (did:key §3.1, did:jwk §2.2). */
export function keyOfDidUrl(kid: string, alg: Algorithm): ProvedKey {
  const [did, fragment, ...rest] = kid.split('#');
  if (fragment === undefined || rest.length > 0)
    throw new ProofRefusal('has a kid that is not a DID URL');
  if (did.startsWith('did:key:')) {
    if (fragment !== did.slice('did:key:'.length))
      throw new ProofRefusal('has a did:key kid whose fragment is not its key');
    const jwk = jwkOfDidKey(did);
    if (jwk?.kty !== (alg === 'ES256' ? 'EC' : 'OKP'))
      throw new ProofRefusal(
        `has a kid that is not ${alg === 'ES256' ? 'a P-256' : 'an Ed25519'} did:key`,
      );
    return { jwk, did };
  }
  if (did.startsWith('did:jwk:')) {
    const jwk = jwkOfDidJwk(did);
    if (fragment !== '0' || typeof jwk === 'string')
      throw new ProofRefusal('has a did:jwk kid that is not did:jwk:<base64url JWK>#0');
    return { jwk: proofJwkOf(jwk, alg), did };
  }
  throw new ProofRefusal('has a kid that is neither a did:key nor a did:jwk URL');
}
