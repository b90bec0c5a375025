import {
  Check,
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
} from 'typeorm';

export const certificateStatuses = ['active', 'superseded', 'expired'] as const;
export type CertificateStatus = (typeof certificateStatuses)[number];
export const certificateSources = ['authority', 'imported'] as const;
export type CertificateSource = (typeof certificateSources)[number];
/** `x5c`: the chain of the tenant's JWS (HAIP 1.0); `document_signer`: its mdocs' x5chain (ISO/IEC 18013-5). */
export const certificatePurposes = ['x5c', 'document_signer'] as const;
export type CertificatePurpose = (typeof certificatePurposes)[number];

/**
 * A certificate chain for a tenant's ES256 key (HAIP 1.0 `x5c`, or an mdoc document signer's): at most one active per tenant and purpose, the
 * ones it replaced kept as superseded, one past its notAfter marked expired (docs/certificates.md).
 */
@Entity({ name: 'tenant_certificate' })
@Check('tenant_certificate_status_check', `"status" IN ('active', 'superseded', 'expired')`)
@Check('tenant_certificate_source_check', `"source" IN ('authority', 'imported')`)
@Check('tenant_certificate_purpose_check', `"purpose" IN ('x5c', 'document_signer')`)
@Index('tenant_certificate_one_active', ['tenantId', 'purpose'], {
  unique: true,
  where: `"status" = 'active'`,
})
@Index('tenant_certificate_tenant_idx', ['tenantId', 'createdAt'])
@Index('tenant_certificate_active_expiry_idx', ['notAfter'], { where: `"status" = 'active'` })
export class TenantCertificateEntity {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'tenant_certificate_pkey' })
  id: string;

  @Column({ name: 'tenant_id', type: 'varchar', length: 64 })
  tenantId: string;

  /** The tenants feature's row, by entity name: the foreign key without importing its class. */
  @ManyToOne('TenantEntity', { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'tenant_id', foreignKeyConstraintName: 'tenant_certificate_tenant_id_fkey' })
  tenant?: unknown;

  @Column({ type: 'varchar', length: 16 })
  status: CertificateStatus;

  @Column({ type: 'varchar', length: 16 })
  source: CertificateSource;

  @Column({ type: 'varchar', length: 16, default: 'x5c' })
  purpose: CertificatePurpose;

  /** The RFC 7638 thumbprint of the tenant's ES256 key the leaf certifies. */
  @Column({ type: 'varchar', length: 64 })
  kid: string;

  /** The leaf's subject and issuer names (RFC 4514 strings). */
  @Column({ type: 'varchar', length: 1024 })
  subject: string;

  @Column({ type: 'varchar', length: 1024 })
  issuer: string;

  @Column({ name: 'serial_number', type: 'varchar', length: 64 })
  serialNumber: string;

  /** The leaf's subjectAltName dNSName and uniformResourceIdentifier entries. */
  @Column({ name: 'dns_names', type: 'jsonb' })
  dnsNames: string[];

  @Column({ type: 'jsonb' })
  uris: string[];

  /** Standard base64 DER, leaf first, never the root (RFC 7515 §4.1.6; HAIP 1.0). */
  @Column({ type: 'jsonb' })
  x5c: string[];

  @Column({ name: 'not_before', type: 'timestamptz' })
  notBefore: Date;

  @Column({ name: 'not_after', type: 'timestamptz' })
  notAfter: Date;

  /** When `certificate.expiring` was written for it: once per certificate. */
  @Column({ name: 'expiring_notified_at', type: 'timestamptz', nullable: true })
  expiringNotifiedAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
