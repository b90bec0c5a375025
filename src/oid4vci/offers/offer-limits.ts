/** Bounds of a tenant's credential offers (docs/oid4vci.md, Offers). */
export const offerLimits = {
  /** Open offers (offered or accepted, not yet past their time) per tenant. */
  openPerTenant: 1000,
  /** How long an offer stays open, in seconds: a minute to a day, ten minutes unless told. */
  minExpiresIn: 60,
  maxExpiresIn: 86_400,
  defaultExpiresIn: 600,
  /** The subject's claims: their JSON in bytes, and how deeply objects and arrays nest. */
  claimsBytes: 32 * 1024,
  claimsDepth: 8,
  /** The transaction code: its length, its default length, and its description's characters. */
  txCodeMinLength: 4,
  txCodeMaxLength: 8,
  txCodeDefaultLength: 6,
  txCodeDescriptionChars: 300,
  /** Offers the expiry job ends per transaction, and transactions per run. */
  expiryBatch: 200,
  expiryBatchesPerRun: 10,
} as const;
