import { createHash } from 'node:crypto';
import { constantTimeEqual } from './hashing.js';
import { OAuthError } from '../common/oauth-error.js';

/** RFC 7636's code verifier (and challenge) alphabet and length. */
export const pkceValuePattern = /^[A-Za-z0-9\-._~]{43,128}$/;

/** The code exchange's PKCE check, with Keycloak's PkceUtils errors. */
export function verifyPkce(
  challenge: string,
  method: string | null,
  verifier: string | undefined,
): void {
  if (verifier === undefined || verifier === '') {
    throw new OAuthError(400, 'invalid_grant', 'PKCE code verifier not specified');
  }
  const computed =
    method === 'plain' ? verifier : createHash('sha256').update(verifier).digest('base64url');
  // Keycloak tells a malformed verifier from a mismatching one.
  if (!pkceValuePattern.test(verifier)) {
    throw new OAuthError(400, 'invalid_grant', 'PKCE verification failed: Invalid code verifier');
  }
  if (!constantTimeEqual(computed, challenge)) {
    throw new OAuthError(400, 'invalid_grant', 'PKCE verification failed: Code mismatch');
  }
}
