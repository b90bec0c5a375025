/** Bounds of a tenant's trusted wallet providers and of what a wallet presents (docs/wallet-providers.md). */
export const walletProviderLimits = {
  /** Entries: each attestation check reads the tenant's whole list, in one query. */
  entries: 50,
  /** Characters of one PEM certificate: 8 KiB of DER (src/x509/) in base64 lines, with room. */
  pemChars: 12_000,
  labelChars: 200,
  /** Parsed certificates kept in memory across tenants, by fingerprint. */
  remembered: 1_000,
  /** Characters of an attestation header (x5c of up to 5 certificates of 8 KiB, in base64url JSON). */
  attestationChars: 64 * 1024,
  /** Characters of a PoP or of an attestation's `sub`, `jti`. */
  popChars: 4096,
  idChars: 256,
} as const;
