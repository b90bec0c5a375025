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

/** An issuer a tenant accepts credentials from when a verification names no list of its own. */
@Entity({ name: 'trusted_issuer' })
@Unique('trusted_issuer_tenant_issuer_key', ['tenantId', 'issuer'])
@Index('trusted_issuer_tenant_idx', ['tenantId', 'createdAt'])
export class TrustedIssuerEntity {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'trusted_issuer_pkey' })
  id: string;

  @Column({ name: 'tenant_id', type: 'varchar', length: 64 })
  tenantId: string;

  /** The tenants feature's row, by entity name: the foreign key without importing its class. */
  @ManyToOne('TenantEntity', { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'tenant_id', foreignKeyConstraintName: 'trusted_issuer_tenant_id_fkey' })
  tenant?: unknown;

  /** The issuer's id as credentials name it (usually a DID), compared exactly. */
  @Column({ type: 'varchar', length: 2048 })
  issuer: string;

  @Column({ type: 'varchar', length: 500, nullable: true })
  description: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
