import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
  Unique,
} from 'typeorm';

/** A wallet provider's CA certificate: wallet and key attestations' `x5c` chains end at it (HAIP 1.0 §4.4). */
@Entity({ name: 'wallet_provider' })
@Unique('wallet_provider_tenant_fingerprint_key', ['tenantId', 'fingerprint'])
@Index('wallet_provider_tenant_idx', ['tenantId', 'createdAt'])
export class WalletProviderEntity {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'wallet_provider_pkey' })
  id: string;

  @Column({ name: 'tenant_id', type: 'varchar', length: 64 })
  tenantId: string;

  /** The tenants feature's row, by entity name: the foreign key without importing its class. */
  @ManyToOne('TenantEntity', { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'tenant_id', foreignKeyConstraintName: 'wallet_provider_tenant_id_fkey' })
  tenant?: unknown;

  @Column({ type: 'varchar', length: 200, nullable: true })
  label: string | null;

  /** SHA-256 of the DER, hex: one certificate is one wallet provider per tenant. */
  @Column({ type: 'char', length: 64 })
  fingerprint: string;

  /** The certificate as PEM; the columns below are read from it once, when it is added. */
  @Column({ type: 'text' })
  certificate: string;

  @Column({ type: 'text' })
  subject: string;

  @Column({ type: 'text' })
  issuer: string;

  @Column({ name: 'not_before', type: 'timestamptz' })
  notBefore: Date;

  @Column({ name: 'not_after', type: 'timestamptz' })
  notAfter: Date;

  /** base64url; null when the certificate has none. */
  @Column({ name: 'subject_key_identifier', type: 'varchar', length: 128, nullable: true })
  subjectKeyIdentifier: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
