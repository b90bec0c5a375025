import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';

/** A `c_nonce` the nonce endpoint gave out (OpenID4VCI 1.0 §7), by its hash; spent by deleting it. */
@Entity({ name: 'oid4vci_nonce' })
@Index('oid4vci_nonce_expiry_idx', ['expiresAt'])
export class NonceEntity {
  @PrimaryColumn({
    name: 'nonce_hash',
    type: 'bytea',
    primaryKeyConstraintName: 'oid4vci_nonce_pkey',
  })
  nonceHash: Buffer;

  @Column({ name: 'tenant_id', type: 'varchar', length: 64 })
  tenantId: string;

  /** The tenants feature's row, by entity name: the foreign key without importing its class. */
  @ManyToOne('TenantEntity', { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'tenant_id', foreignKeyConstraintName: 'oid4vci_nonce_tenant_id_fkey' })
  tenant?: unknown;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;
}
