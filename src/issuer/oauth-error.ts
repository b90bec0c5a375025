/** An OAuth 2.0 / OIDC error as Keycloak answers it: `{"error": ..., "error_description": ...}`. */
export class OAuthError extends Error {
  constructor(
    /** 200 too: the revocation endpoint answers a token it cannot use so (RFC 7009 §2.2, Keycloak). */
    readonly status: 200 | 400 | 401 | 403,
    readonly error: string,
    readonly description: string,
    /** For 401s of protected resources (userinfo): the RFC 6750 challenge. */
    readonly challenge?: string,
  ) {
    super(`${error}: ${description}`);
    this.name = 'OAuthError';
  }
}
