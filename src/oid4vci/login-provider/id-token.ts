import { createLocalJWKSet, errors, jwtVerify, type JWK, type JWTPayload } from 'jose';
import { LoginProviderError } from './login-provider.error.js';
import { loginProviderLimits } from './login-provider-limits.js';

/** Asymmetric JWS algorithms only: never `none`, never a MAC keyed with the client secret. */
const algorithms = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
];

export interface IdTokenExpectations {
  issuer: string;
  clientId: string;
  nonce: string;
  /** Seconds since the epoch. */
  now: number;
}

/** The key set had no key for the token's header: the caller may fetch the set again once. */
export class UnknownKeyError extends Error {}

/**
 * The ID token's claims once it passed OpenID Connect Core 1.0 §3.1.3.7: signed by a key of the
 * provider's set, `iss` exactly the issuer, `aud` naming the client (and `azp` the client when it names
 * others too), not expired, `nonce` the login's, a `sub`. Otherwise `id_token_refused`.
 */
export async function verifiedIdToken(
  idToken: string,
  keys: JWK[],
  expected: IdTokenExpectations,
): Promise<JWTPayload> {
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(idToken, createLocalJWKSet({ keys }), {
      issuer: expected.issuer,
      audience: expected.clientId,
      algorithms,
      requiredClaims: ['sub', 'exp', 'iat'],
      clockTolerance: loginProviderLimits.clockToleranceSeconds,
      currentDate: new Date(expected.now * 1000),
    }));
  } catch (error) {
    if (error instanceof errors.JWKSNoMatchingKey) throw new UnknownKeyError();
    const why = error instanceof errors.JOSEError ? error.message : 'it is not a JWT';
    throw new LoginProviderError('id_token_refused', `the ID token was refused: ${why}`);
  }
  const refuse = (why: string) => {
    throw new LoginProviderError('id_token_refused', `the ID token ${why}`);
  };
  if (payload.nonce !== expected.nonce) refuse("names another nonce than the login's");
  const audiences = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
  if (payload.azp !== undefined && payload.azp !== expected.clientId) {
    refuse('names another authorized party (azp)');
  }
  if (audiences.length > 1 && payload.azp === undefined) {
    refuse('names several audiences and no authorized party (azp)');
  }
  if (typeof payload.sub !== 'string' || payload.sub === '') refuse('has no subject');
  return payload;
}
