import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
} from 'typeorm';

/**
 * Where an authorization is (docs/oid4vci.md, Authorization code flow): `pushed` by PAR, `login` once
 * the browser went to the person's login, `finishing` while its callback runs, `code` once the wallet
 * holds the code, `redeemed` or `denied` at its end.
 */
export type AuthorizationState = 'pushed' | 'login' | 'finishing' | 'code' | 'redeemed' | 'denied';

/**
 * One authorization of the code flow (OpenID4VCI 1.0 §5): the pushed request (RFC 9126), the login's
 * state, nonce and PKCE verifier, the code. The request URI, the login state and the code are kept as
 * SHA-256 hashes, each spent once by a state change; the login secrets and the claims sealed.
 */
@Entity({ name: 'oid4vci_authorization' })
@Index('oid4vci_authorization_request_uri_idx', ['requestUriHash'], { unique: true })
@Index('oid4vci_authorization_login_state_idx', ['loginStateHash'], { unique: true })
@Index('oid4vci_authorization_code_idx', ['codeHash'], { unique: true })
@Index('oid4vci_authorization_expiry_idx', ['expiresAt'])
export class AuthorizationEntity {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'oid4vci_authorization_pkey' })
  id: string;

  @Column({ name: 'tenant_id', type: 'varchar', length: 64 })
  tenantId: string;

  /** The tenants feature's row, by entity name: the foreign key without importing its class. */
  @ManyToOne('TenantEntity', { onDelete: 'CASCADE' })
  @JoinColumn({
    name: 'tenant_id',
    foreignKeyConstraintName: 'oid4vci_authorization_tenant_id_fkey',
  })
  tenant?: unknown;

  @Column({ type: 'varchar', length: 16 })
  state: AuthorizationState;

  @Column({ name: 'request_uri_hash', type: 'bytea' })
  requestUriHash: Buffer;

  @Column({ name: 'login_state_hash', type: 'bytea', nullable: true })
  loginStateHash: Buffer | null;

  @Column({ name: 'code_hash', type: 'bytea', nullable: true })
  codeHash: Buffer | null;

  @Column({ name: 'client_id', type: 'varchar', length: 255 })
  clientId: string;

  @Column({ name: 'redirect_uri', type: 'varchar', length: 2048 })
  redirectUri: string;

  /** The wallet's own `state`, given back with the code. */
  @Column({ name: 'wallet_state', type: 'varchar', length: 512, nullable: true })
  walletState: string | null;

  /** The wallet's PKCE S256 challenge (RFC 7636 §4.2). */
  @Column({ name: 'code_challenge', type: 'varchar', length: 128 })
  codeChallenge: string;

  /** The DPoP key the pushed request proved (RFC 9449 §10): the token request must use it. */
  @Column({ name: 'dpop_jkt', type: 'varchar', length: 64, nullable: true })
  dpopJkt: string | null;

  @Column({ name: 'configuration_id', type: 'varchar', length: 64 })
  configurationId: string;

  /** The offer named by `issuer_state`, or the one made for a wallet-initiated issuance. */
  @Column({ name: 'offer_id', type: 'uuid', nullable: true })
  offerId: string | null;

  /** Whether the wallet asked by `authorization_details` (the token answers `credential_identifiers`). */
  @Column({ name: 'by_authorization_details', type: 'boolean' })
  byAuthorizationDetails: boolean;

  /** The login's nonce and PKCE verifier as JSON, sealed for the tenant. */
  @Column({ name: 'login_sealed', type: 'bytea', nullable: true })
  loginSealed: Buffer | null;

  @Column({ name: 'login_master_key_id', type: 'varchar', length: 64, nullable: true })
  loginMasterKeyId: string | null;

  /** The credential's claims as the offer takes them at the token: sealed for the offer's id. */
  @Column({ name: 'claims_sealed', type: 'bytea', nullable: true })
  claimsSealed: Buffer | null;

  @Column({ name: 'claims_master_key_id', type: 'varchar', length: 64, nullable: true })
  claimsMasterKeyId: string | null;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
