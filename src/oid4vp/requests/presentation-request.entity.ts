import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
} from 'typeorm';

/** Where a presentation request is (docs/oid4vp.md): it ends `verified`, `failed` or `expired`. */
export type PresentationRequestStatus = 'pending' | 'verified' | 'failed' | 'expired';

/** Redirects (OpenID4VP 1.0 §8.2, §8.3) or the Digital Credentials API (appendix A). */
export type ResponseMode = 'direct_post' | 'direct_post.jwt' | 'dc_api' | 'dc_api.jwt';

/** Whether the wallet answers through the browser's Digital Credentials API (OpenID4VP 1.0 appendix A). */
export function isDcApiMode(mode: ResponseMode): mode is 'dc_api' | 'dc_api.jwt' {
  return mode === 'dc_api' || mode === 'dc_api.jwt';
}

/** What was verified for one credential query of the DCQL query: no claim values (see `claims_sealed`). */
export interface PresentedCredentialSummary {
  format: 'dc+sd-jwt' | 'ldp_vc' | 'mso_mdoc';
  issuer: string;
  vct?: string;
  types?: string[];
  /** mso_mdoc: the document's doctype. */
  doctype?: string;
  /** RFC 7638 SHA-256 thumbprint of the holder's key, base64url; null without holder binding. */
  holderKeyThumbprint: string | null;
  /** The status check's result: `none` when the credential names no status. */
  status: 'valid' | 'revoked' | 'suspended' | 'none';
  /** An SD-JWT VC signed by an x5c leaf, or an mdoc: whose certificate, and the anchor its chain ended at. */
  certificateChain?: { leafSubject: string; anchorSubject: string | null };
}

/**
 * An OpenID4VP 1.0 authorization request of a tenant, answered once by a wallet. The reference (the
 * random part of `request_uri`) is found by its SHA-256 hash and kept sealed with the response
 * encryption key (`secrets_sealed`); the disclosed claims are personal data, sealed in `claims_sealed`
 * and erased after the retention time, while the outcome stays.
 */
@Entity({ name: 'oid4vp_request' })
@Index('oid4vp_request_tenant_idx', ['tenantId', 'createdAt', 'id'])
@Index('oid4vp_request_reference_idx', ['referenceHash'], { unique: true })
@Index('oid4vp_request_pending_expiry_idx', ['expiresAt'], { where: `"status" = 'pending'` })
// The pending-requests cap's count: the tenant's pending requests alone.
@Index('oid4vp_request_tenant_pending_idx', ['tenantId', 'expiresAt'], {
  where: `"status" = 'pending'`,
})
@Index('oid4vp_request_claims_idx', ['endedAt'], { where: `"claims_sealed" IS NOT NULL` })
export class PresentationRequestEntity {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'oid4vp_request_pkey' })
  id: string;

  @Column({ name: 'tenant_id', type: 'varchar', length: 64 })
  tenantId: string;

  /** The tenants feature's row, by entity name: the foreign key without importing its class. */
  @ManyToOne('TenantEntity', { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'tenant_id', foreignKeyConstraintName: 'oid4vp_request_tenant_id_fkey' })
  tenant?: unknown;

  @Column({ type: 'varchar', length: 16 })
  status: PresentationRequestStatus;

  /** The DCQL query (OpenID4VP 1.0 §6) as validated at creation. */
  @Column({ name: 'dcql_query', type: 'jsonb' })
  dcqlQuery: Record<string, unknown>;

  @Column({ name: 'response_mode', type: 'varchar', length: 32 })
  responseMode: ResponseMode;

  /** `get`, or `post` when the link offers `request_uri_method=post` (OpenID4VP 1.0 §5.10). */
  @Column({ name: 'request_uri_method', type: 'varchar', length: 8 })
  requestUriMethod: 'get' | 'post';

  /** The request's own trusted issuers; null: the tenant's list, else any issuer whose key resolves. */
  @Column({ name: 'trusted_issuers', type: 'jsonb', nullable: true })
  trustedIssuers: string[] | null;

  /** DC API: the web origins the relying party's page calls from; null for redirect requests. */
  @Column({ name: 'expected_origins', type: 'jsonb', nullable: true })
  expectedOrigins: string[] | null;

  /**
   * The tenant's client id when the request was made (x509 or its DID). An unsigned DC API request
   * does not send it: the wallet knows the verifier by the browser's origin (OpenID4VP 1.0 A.2).
   */
  @Column({ name: 'client_id', type: 'varchar', length: 256 })
  clientId: string;

  /** 256-bit random, base64url: what the wallet's key binding or presentation proof must name. */
  @Column({ type: 'varchar', length: 64 })
  nonce: string;

  @Column({ type: 'varchar', length: 64 })
  state: string;

  /** SHA-256 of the random last segment of `request_uri`. */
  @Column({ name: 'reference_hash', type: 'bytea' })
  referenceHash: Buffer;

  /** `{reference, responseKey?}` as JSON (responseKey: the private JWK for direct_post.jwt), sealed for the tenant. */
  @Column({ name: 'secrets_sealed', type: 'bytea' })
  secretsSealed: Buffer;

  @Column({ name: 'master_key_id', type: 'varchar', length: 64, nullable: true })
  masterKeyId: string | null;

  /** Why the request failed (a stable code of docs/oid4vp.md) or null. */
  @Column({ name: 'outcome_code', type: 'varchar', length: 64, nullable: true })
  outcomeCode: string | null;

  /** A sentence a person understands: which check failed. */
  @Column({ name: 'outcome_reason', type: 'varchar', length: 1024, nullable: true })
  outcomeReason: string | null;

  /** Per credential query id, what was verified (no claim values); null until verified. */
  @Column({ type: 'jsonb', nullable: true })
  presented: Record<string, PresentedCredentialSummary[]> | null;

  /** Per credential query id, the disclosed claims of each credential, as JSON sealed for the tenant. */
  @Column({ name: 'claims_sealed', type: 'bytea', nullable: true })
  claimsSealed: Buffer | null;

  @Column({ name: 'claims_master_key_id', type: 'varchar', length: 64, nullable: true })
  claimsMasterKeyId: string | null;

  /** When the retention job erased the claims. */
  @Column({ name: 'claims_erased_at', type: 'timestamptz', nullable: true })
  claimsErasedAt: Date | null;

  /** Answers refused as not bound to this request (docs/oid4vp.md); at the bound the request fails. */
  @Column({ name: 'refused_answers', type: 'integer', default: 0 })
  refusedAnswers: number;

  /** Same-device flows: where the wallet sends the person's browser once verified (OpenID4VP 1.0 §8.2). */
  @Column({ name: 'redirect_uri', type: 'varchar', length: 2048, nullable: true })
  redirectUri: string | null;

  /** SHA-256 of the `response_code` appended to `redirect_uri` when verified; the code itself is not kept. */
  @Column({ name: 'response_code_hash', type: 'bytea', nullable: true })
  responseCodeHash: Buffer | null;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;

  /** When the request became verified, failed or expired. */
  @Column({ name: 'ended_at', type: 'timestamptz', nullable: true })
  endedAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
