import { type JwsAlgorithm } from '../../jose/algorithms.js';
import { issuedAtProblem, issuedAtWindow } from '../../jose/issued-at.js';
import { type PublicJwk } from '../../jose/jwk.js';
import { decodeJws, jwsVerifies } from '../../jose/jws.js';
import { algProblem, publicKeyFor } from './jws.js';
import { sha256Base64url } from './sd-jwt-presentation.js';

export type KeyBindingCode =
  'key_binding_invalid' | 'nonce_mismatch' | 'audience_mismatch' | 'key_binding_stale';

export interface KeyBindingExpectation {
  nonce: string;
  clientId: string;
  /** Seconds since the epoch. */
  now: number;
  /** The presentation up to its last `~`. */
  withoutKb: string;
}

/**
 * Why the KB-JWT does not bind this presentation to the holder's `cnf` key for this request (RFC 9901
 * §7.3, OpenID4VP 1.0 appendix B.3.6), or undefined: `typ: kb+jwt`, signed by the cnf key, `sd_hash`
 * over what was presented, the request's `nonce` and client id as `aud`, `iat` within the window.
 */
export function keyBindingProblem(
  kbJwt: string,
  cnfJwk: PublicJwk,
  expected: KeyBindingExpectation,
): { code: KeyBindingCode; reason: string } | undefined {
  const invalid = (reason: string) => ({ code: 'key_binding_invalid' as const, reason });
  const decoded = decodeJws(kbJwt);
  if (typeof decoded === 'string') return invalid(`the key binding JWT ${decoded}`);
  const { header, payload } = decoded;
  if (header.typ !== 'kb+jwt') return invalid("the key binding JWT's typ is not kb+jwt");
  const unfit = algProblem(header.alg);
  if (unfit !== undefined) return invalid(`the key binding JWT ${unfit}`);
  const alg = header.alg as JwsAlgorithm;
  const key = publicKeyFor(cnfJwk, alg);
  if (typeof key === 'string') return invalid(`the credential's cnf key: ${key}`);
  if (!jwsVerifies(kbJwt, key, alg)) {
    return invalid("the key binding JWT is not signed by the credential's holder key (cnf)");
  }
  if (payload.sd_hash !== sha256Base64url(expected.withoutKb)) {
    return invalid("the key binding JWT's sd_hash is not the hash of the presented SD-JWT");
  }
  if (payload.nonce !== expected.nonce) {
    return {
      code: 'nonce_mismatch',
      reason: "the key binding JWT's nonce is not this request's nonce",
    };
  }
  if (payload.aud !== expected.clientId) {
    return {
      code: 'audience_mismatch',
      reason: "the key binding JWT's aud is not this request's client_id",
    };
  }
  const { iat } = payload;
  const fresh = issuedAtProblem(iat, expected.now);
  if (fresh === 'missing') return invalid('the key binding JWT has no numeric iat');
  if (fresh === 'outside') {
    return {
      code: 'key_binding_stale',
      reason: `the key binding JWT's iat is ${(iat as number) - expected.now} s from now, not within ${issuedAtWindow.pastSeconds} s before or ${issuedAtWindow.futureSeconds} s after now`,
    };
  }
  return undefined;
}
