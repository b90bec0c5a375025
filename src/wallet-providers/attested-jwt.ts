import { type JWTPayload, type ProtectedHeaderParameters } from 'jose';
import { issuedAtWindow } from '../jose/issued-at.js';
import { typedJwtHeader } from '../jose/jws.js';
import { JwtRefusal, verifiedJwt } from '../jose/jwt.js';
import { publicJwkFor, type PublicJwk } from '../jose/jwk.js';
import { type Certificate, publicKeyJwk, validateChain } from '../x509/chain.js';

/** Why an attestation or its proof is refused; the caller turns it into its OAuth error. */
export class AttestationRefusal extends Error {}

/** What attestations and their proofs may be signed with: ES256 (HAIP 1.0) or EdDSA. */
export const attestationAlgorithms = ['ES256', 'EdDSA'] as const;
export type AttestationAlgorithm = (typeof attestationAlgorithms)[number];

export type Header = ProtectedHeaderParameters & { alg: AttestationAlgorithm };

/** The header of a compact JWT of at most `maxChars`, with `typ` and an algorithm of ours. */
export function headerOf(jwt: string, typ: string, maxChars: number): Header {
  const header = typedJwtHeader(jwt, typ, attestationAlgorithms, maxChars);
  if (typeof header === 'string') throw new AttestationRefusal(header);
  return header;
}

/** A public key of `alg`'s type, public members only. */
export function keyOf(value: unknown, alg: AttestationAlgorithm, what: string): PublicJwk {
  const jwk = publicJwkFor(value, alg);
  if (typeof jwk === 'string') throw new AttestationRefusal(`has no ${alg} public key in ${what}`);
  return jwk;
}

/**
 * The payload of `jwt` once its signature verifies with `jwk`; `exp` and `nbf`, when present, are
 * checked at `now` with the proofs' clock allowance, `aud` when given.
 */
export function verifiedWith(
  jwt: string,
  jwk: PublicJwk,
  header: Header,
  now: number,
  options: { audience?: string; requiredClaims?: string[] } = {},
): JWTPayload {
  try {
    return verifiedJwt(jwt, jwk, header.alg, {
      now,
      toleranceSeconds: issuedAtWindow.futureSeconds,
      ...options,
    });
  } catch (error) {
    if (!(error instanceof JwtRefusal)) throw error;
    if (error.reason === 'expired') throw new AttestationRefusal('has expired');
    if (error.reason === 'claim')
      throw new AttestationRefusal(
        error.claim === 'nbf' ? 'is not valid yet' : `has a missing or wrong ${error.claim}`,
      );
    throw new AttestationRefusal('has a signature that does not verify');
  }
}

/**
 * A JWT signed by a wallet provider (HAIP 1.0 §4.4): its header's `x5c` validates at `now` up to one
 * of `providers` (src/x509/chain.ts; none listed trusts nothing), and the leaf's key verifies it.
 */
export function verifiedByProvider(
  jwt: string,
  header: Header,
  providers: readonly Certificate[],
  now: number,
  requiredClaims: string[],
): JWTPayload {
  if (header.x5c === undefined)
    throw new AttestationRefusal('must carry its certificate chain in x5c');
  const chain = validateChain(header.x5c, providers, new Date(now));
  if (!chain.ok) throw new AttestationRefusal(`has an x5c chain refused: ${chain.text}`);
  const leafKey = keyOf(publicKeyJwk(chain.leaf), header.alg, 'its x5c leaf');
  return verifiedWith(jwt, leafKey, header, now, { requiredClaims });
}
