import { createHash, randomBytes } from 'node:crypto';

/**
 * A same-device answer's `response_code` (OpenID4VP 1.0 §8.2): 256 random bits the wallet hands the
 * person's browser through `redirect_uri`; the request keeps only its SHA-256.
 */
export interface ResponseCode {
  code: string;
  sha256: Buffer;
}

export function drawResponseCode(): ResponseCode {
  const code = randomBytes(32).toString('base64url');
  return { code, sha256: createHash('sha256').update(code).digest() };
}

/**
 * The caller's redirect URI with the code appended as a query parameter: appended as text, so that the
 * caller's own query stays exactly as given (it has no fragment: the requests API refuses one).
 */
export function redirectWithCode(redirectUri: string, code: string): string {
  return `${redirectUri}${redirectUri.includes('?') ? '&' : '?'}response_code=${code}`;
}
