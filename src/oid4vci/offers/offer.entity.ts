import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
  UpdateDateColumn,
} from 'typeorm';
import { type ConfigurationDefinition } from '../credential-configuration.rules.js';

/** Where an offer is: `expired` once its time passed before it was issued (docs/oid4vci.md). */
export type OfferStatus = 'offered' | 'accepted' | 'issued' | 'expired' | 'failed' | 'withdrawn';

/** The grant an offer carries (OpenID4VCI 1.0 §4.1.1): the pre-authorized code, or the person's login. */
export type OfferGrant = 'pre-authorized_code' | 'authorization_code';

/** The transaction code a wallet asks its user for, as the offer describes it (never its value). */
export interface TxCodeDescription {
  length: number;
  input_mode: 'numeric' | 'text';
  description?: string;
}

/**
 * A credential offer of a tenant (OpenID4VCI 1.0 §4) and the pre-authorized code flow it starts: the
 * code, the transaction code and the access token are kept as SHA-256 hashes (the transaction code
 * salted and stretched), never in the clear; the code and the offer's reference are also sealed for the
 * tenant (`secretsSealed`), so that the offer can be served by reference and drawn as a QR code again.
 */
@Entity({ name: 'oid4vci_offer' })
@Index('oid4vci_offer_tenant_idx', ['tenantId', 'createdAt'])
@Index('oid4vci_offer_code_idx', ['preAuthorizedCodeHash'], { unique: true })
@Index('oid4vci_offer_reference_idx', ['referenceHash'], { unique: true })
@Index('oid4vci_offer_access_token_idx', ['accessTokenHash'], { unique: true })
@Index('oid4vci_offer_notification_idx', ['notificationId'], { unique: true })
// The expiry job's work: open offers past their time.
@Index('oid4vci_offer_open_expiry_idx', ['expiresAt'], {
  where: `"status" IN ('offered', 'accepted')`,
})
// The open-offers cap's count: the tenant's open offers alone.
@Index('oid4vci_offer_tenant_open_idx', ['tenantId', 'expiresAt'], {
  where: `"status" IN ('offered', 'accepted')`,
})
// The sealing step's work: offers made before claims were sealed that still hold them in the clear.
@Index('oid4vci_offer_unsealed_claims_idx', ['id'], { where: `"claims_unsealed" IS NOT NULL` })
export class OfferEntity {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'oid4vci_offer_pkey' })
  id: string;

  @Column({ name: 'tenant_id', type: 'varchar', length: 64 })
  tenantId: string;

  /** The tenants feature's row, by entity name: the foreign key without importing its class. */
  @ManyToOne('TenantEntity', { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'tenant_id', foreignKeyConstraintName: 'oid4vci_offer_tenant_id_fkey' })
  tenant?: unknown;

  @Column({ name: 'configuration_id', type: 'varchar', length: 64 })
  configurationId: string;

  /** The configuration as it was when offered: what the credential endpoint issues. */
  @Column({ type: 'jsonb' })
  configuration: ConfigurationDefinition;

  /**
   * The subject's claims as JSON, sealed by the KeyVault with the offer's id as owner, until the
   * credential is issued or the offer ends; then null. Read only where the credential is issued.
   */
  @Column({ name: 'claims_sealed', type: 'bytea', nullable: true, select: false })
  claimsSealed: Buffer | null;

  @Column({ name: 'claims_master_key_id', type: 'varchar', length: 64, nullable: true })
  claimsMasterKeyId: string | null;

  /**
   * The claims of an offer made before they were sealed, in the clear until the expiry job seals them
   * (migrations/1795799000000-offer-claims-sealed.ts); never written otherwise.
   */
  @Column({ name: 'claims_unsealed', type: 'jsonb', nullable: true, select: false })
  claimsUnsealed: Record<string, unknown> | null;

  @Column({ type: 'varchar', length: 16 })
  status: OfferStatus;

  /** Whether the link carries the offer itself (`credential_offer`) rather than `credential_offer_uri`. */
  @Column({ name: 'by_value', type: 'boolean' })
  byValue: boolean;

  /** `{preAuthorizedCode, reference}` as JSON, sealed by the KeyVault for the tenant. */
  @Column({ name: 'secrets_sealed', type: 'bytea' })
  secretsSealed: Buffer;

  @Column({ name: 'master_key_id', type: 'varchar', length: 64, nullable: true })
  masterKeyId: string | null;

  /**
   * The hash of the offer's grant secret: its pre-authorized code, or for `authorization_code` its
   * `issuer_state` (a wallet-initiated offer's is drawn and never shown); `grantType` tells which.
   */
  @Column({ name: 'pre_authorized_code_hash', type: 'bytea' })
  preAuthorizedCodeHash: Buffer;

  @Column({ name: 'grant_type', type: 'varchar', length: 24, default: 'pre-authorized_code' })
  grantType: OfferGrant;

  /** The person the offer is for (`authorization_code`): the login's `sub` or `preferred_username`. */
  @Column({ type: 'varchar', length: 255, nullable: true })
  subject: string | null;

  /** The random part of `credential_offer_uri`. */
  @Column({ name: 'reference_hash', type: 'bytea' })
  referenceHash: Buffer;

  @Column({ name: 'tx_code', type: 'jsonb', nullable: true })
  txCode: TxCodeDescription | null;

  @Column({ name: 'tx_code_hash', type: 'bytea', nullable: true })
  txCodeHash: Buffer | null;

  @Column({ name: 'tx_code_failures', type: 'integer', default: 0 })
  txCodeFailures: number;

  @Column({ name: 'access_token_hash', type: 'bytea', nullable: true })
  accessTokenHash: Buffer | null;

  @Column({ name: 'access_token_expires_at', type: 'timestamptz', nullable: true })
  accessTokenExpiresAt: Date | null;

  /** The JWK thumbprint (RFC 7638) the access token is bound to by DPoP (RFC 9449 §6); null: Bearer. */
  @Column({ name: 'dpop_jkt', type: 'varchar', length: 64, nullable: true })
  dpopJkt: string | null;

  @Column({ name: 'notification_id', type: 'varchar', length: 64, nullable: true })
  notificationId: string | null;

  /** The wallet's last notification event (`credential_accepted`, ...). */
  @Column({ type: 'varchar', length: 32, nullable: true })
  notification: string | null;

  /** Why the offer failed, when it did. */
  @Column({ type: 'varchar', length: 64, nullable: true })
  failure: string | null;

  /** The issued credentials' ids (`issued_credential.id`). */
  @Column({ name: 'credential_ids', type: 'text', array: true, default: () => "'{}'" })
  credentialIds: string[];

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
