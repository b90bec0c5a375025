/** Bounds of a trusted issuers list, a tenant's or a request's (`options.trustedIssuers`). */
export const trustedIssuerLimits = {
  /** Entries: each verification reads the tenant's whole list, in one query. */
  entries: 100,
  /** Characters of one issuer id, as for any URL a credential names. */
  issuerChars: 2_048,
} as const;
