/** Bounds of a tenant's trust anchors. */
export const trustAnchorLimits = {
  /** Entries: each x5c verification reads the tenant's whole list, in one query. */
  entries: 100,
  /** Characters of one PEM certificate: 8 KiB of DER (src/x509/) in base64 lines, with room. */
  pemChars: 12_000,
  labelChars: 200,
} as const;
