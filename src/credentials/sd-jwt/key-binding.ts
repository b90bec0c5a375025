import { type JWK } from 'jose';
import { algProblem, decodeJws, publicKeyFor, signatureVerifies } from './jws.js';
import { sha256Base64url } from './sd-jwt-presentation.js';

/** How far a KB-JWT's `iat` may lie from now: made for this answer, allowing for clocks apart. */
export const keyBindingWindow = { pastSeconds: 300, futureSeconds: 60 } as const;

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
export async function keyBindingProblem(
  kbJwt: string,
  cnfJwk: JWK,
  expected: KeyBindingExpectation,
): Promise<{ code: KeyBindingCode; reason: string } | undefined> {
  const invalid = (reason: string) => ({ code: 'key_binding_invalid' as const, reason });
  const decoded = decodeJws(kbJwt);
  if (typeof decoded === 'string') return invalid(`the key binding JWT ${decoded}`);
  const { header, payload } = decoded;
  if (header.typ !== 'kb+jwt') return invalid("the key binding JWT's typ is not kb+jwt");
  const unfit = algProblem(header.alg);
  if (unfit !== undefined) return invalid(`the key binding JWT ${unfit}`);
  const alg = header.alg as string;
  const key = publicKeyFor(cnfJwk, alg);
  if (typeof key === 'string') return invalid(`the credential's cnf key: ${key}`);
  if (!(await signatureVerifies(kbJwt, key, alg))) {
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
  if (typeof iat !== 'number' || !Number.isFinite(iat)) {
    return invalid('the key binding JWT has no numeric iat');
  }
  if (
    iat < expected.now - keyBindingWindow.pastSeconds ||
    iat > expected.now + keyBindingWindow.futureSeconds
  ) {
    return {
      code: 'key_binding_stale',
      reason: `the key binding JWT's iat is ${iat - expected.now} s from now, not within ${keyBindingWindow.pastSeconds} s before or ${keyBindingWindow.futureSeconds} s after now`,
    };
  }
  return undefined;
}
