/** Bounds of a tenant's credential configurations (docs/oid4vci.md, Limits). */
export const configurationLimits = {
  /** Configurations per tenant: the issuer metadata lists them all in one answer. */
  perTenant: 50,
  /** Claims of one configuration, and paths in `selectivelyDisclosable`. */
  claims: 100,
  /** Elements of one claim path (its depth). */
  pathDepth: 8,
  /** Characters of a path element that names a key. */
  pathKeyChars: 128,
  /** Highest array index a path element may name. */
  pathIndex: 10_000,
  /** Display entries (one per locale) of a configuration or a claim. */
  displays: 10,
  /** `@context` and `type` entries of an ldp_vc credential definition. */
  definitionEntries: 10,
  /** Validity of issued credentials, in seconds: a minute to five years. */
  minExpiresIn: 60,
  maxExpiresIn: 157_680_000,
} as const;
