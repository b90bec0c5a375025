import { createHash } from 'node:crypto';

/**
 * An authorization request that cannot be answered at the wallet's redirect URI, because none is
 * trusted yet (RFC 6749 §4.1.2.1): the browser is shown the reason instead.
 */
export class AuthorizationPageError extends Error {
  constructor(readonly description: string) {
    super(description);
    this.name = 'AuthorizationPageError';
  }
}

/** The wallet's redirect URI with the response's parameters added (RFC 6749 §4.1.2, RFC 9207 `iss`). */
export function walletRedirect(
  redirectUri: string,
  parameters: Record<string, string | null | undefined>,
): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(parameters))
    if (value !== null && value !== undefined) url.searchParams.set(name, value);
  return url.toString();
}

/** An error response at the wallet's redirect URI (RFC 6749 §4.1.2.1), with `iss` (RFC 9207 §2). */
export function walletErrorRedirect(
  authorization: { redirectUri: string; walletState: string | null },
  issuer: string,
  error: 'access_denied' | 'temporarily_unavailable' | 'invalid_request',
  description: string,
): string {
  return walletRedirect(authorization.redirectUri, {
    error,
    error_description: description,
    state: authorization.walletState,
    iss: issuer,
  });
}

/** RFC 7636 §4.2: BASE64URL(SHA256(ASCII(code_verifier))). */
export function s256(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}
