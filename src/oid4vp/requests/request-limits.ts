/** Bounds of a tenant's presentation requests (docs/oid4vp.md, API). */
export const requestLimits = {
  /** Pending requests (not yet answered, not past their time) per tenant. */
  pendingPerTenant: 1000,
  /** How long a request waits for its answer, in seconds: a minute to an hour, five minutes unless told. */
  minExpiresIn: 60,
  maxExpiresIn: 3600,
  defaultExpiresIn: 300,
  /** The DCQL query: its JSON in bytes, nesting, credential queries, claims per query, claim sets, path length. */
  dcqlBytes: 16 * 1024,
  dcqlDepth: 10,
  credentialQueries: 16,
  claimsPerQuery: 64,
  claimSetsPerQuery: 16,
  pathElements: 16,
  credentialSets: 16,
  /** `trusted_authorities` per credential query, and key identifiers per `aki` entry. */
  trustedAuthorities: 8,
  authorityValues: 32,
  /** `trustedIssuers`: how many, and each one's characters. */
  trustedIssuers: 100,
  trustedIssuerChars: 2048,
  /** `redirectUri`'s characters (with the response code appended, it stays a URL browsers take). */
  redirectUriChars: 2048,
  /** DC API: `expectedOrigins`, how many, and each one's characters. */
  expectedOrigins: 10,
  originChars: 256,
  /**
   * Answers refused as not bound to the request (another nonce, no holder proof, garbage) before it
   * fails with `too_many_refused_answers`: a wallet may retry, a stranger cannot keep it busy forever.
   */
  refusedAnswers: 10,
  /** Requests a job ends or erases per transaction, and transactions per run. */
  jobBatch: 200,
  jobBatchesPerRun: 10,
} as const;
