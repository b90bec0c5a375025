import { type JwsAlgorithm } from './algorithms.js';
import { type PublicJwk } from './jwk.js';
import { verifiedJws } from './jws.js';

/** The claims of a JWT (RFC 7519 §4), a JSON object. */
export type JwtClaims = Record<string, unknown>;

/**
 * Why a JWT is refused: its signature (or its form), `exp` passed, or a claim missing or wrong (named
 * in `claim`). The callers word it for their protocol.
 */
export class JwtRefusal extends Error {
  constructor(
    readonly reason: 'signature' | 'expired' | 'claim',
    readonly claim?: string,
  ) {
    super(claim === undefined ? reason : `${reason}: ${claim}`);
  }
}

export interface JwtExpectation {
  /** Now, in milliseconds since the epoch (our clock: tests move it). */
  now: number;
  /** The allowance for clocks apart, applied to `exp` and `nbf`. */
  toleranceSeconds: number;
  /** When given, `aud` must be it or an array holding it. */
  audience?: string;
  /** Claims that must be present, whatever their value. */
  requiredClaims?: readonly string[];
}

/**
 * The claims of `jwt` once its signature verifies with `jwk` under `alg` (`jwsVerifies`) and its
 * registered time claims hold (RFC 7519 §4.1.4-§4.1.6: numbers when present, `exp` not passed and `nbf`
 * reached at `now` within the allowance) with the audience and claims expected. `typ` and `iat`'s window
 * are the caller's, who checked the header before.
 */
export function verifiedJwt(
  jwt: string,
  jwk: PublicJwk,
  alg: JwsAlgorithm,
  expected: JwtExpectation,
): JwtClaims {
  const verified = verifiedJws(jwt, jwk, alg);
  if (verified === undefined) throw new JwtRefusal('signature');
  const claims = verified.payload;
  for (const claim of expected.requiredClaims ?? [])
    if (!(claim in claims)) throw new JwtRefusal('claim', claim);
  const now = Math.floor(expected.now / 1000);
  const tolerance = expected.toleranceSeconds;
  for (const claim of ['iat', 'nbf', 'exp'])
    if (claims[claim] !== undefined && typeof claims[claim] !== 'number')
      throw new JwtRefusal('claim', claim);
  if (typeof claims.nbf === 'number' && claims.nbf > now + tolerance)
    throw new JwtRefusal('claim', 'nbf');
  if (typeof claims.exp === 'number' && claims.exp <= now - tolerance)
    throw new JwtRefusal('expired', 'exp');
  if (expected.audience !== undefined) {
    const { aud } = claims;
    const holds = Array.isArray(aud) ? aud.includes(expected.audience) : aud === expected.audience;
    if (!holds) throw new JwtRefusal('claim', 'aud');
  }
  return claims;
}
