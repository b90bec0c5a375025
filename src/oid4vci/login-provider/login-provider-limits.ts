/** What talking to a login provider may take and hold (docs/login-provider.md). */
export const loginProviderLimits = {
  /** One outgoing request's whole answer: discovery, JWKS, token, userinfo. */
  timeoutMs: 5_000,
  /** The most of any answer read: discovery documents and key sets are a few kB. */
  bytes: 64 * 1024,
  /** Keys of a JWK Set taken. */
  keys: 32,
  /** Discovery documents and key sets remembered, and for how long. */
  remembered: 1_000,
  rememberedMs: 300_000,
  /** A key set is fetched again for an unknown `kid` at most this often. */
  jwksRefetchMs: 30_000,
  /** ID token `exp`/`iat` tolerance, seconds. */
  clockToleranceSeconds: 5,
  issuerChars: 2_048,
  clientIdChars: 255,
  clientSecretChars: 512,
  scopes: 20,
  scopeChars: 128,
} as const;
