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

/** One Bitstring Status List of a tenant: a bit per credential entry, for one purpose. */
@Entity({ name: 'credential_status_list' })
@Index('credential_status_list_tenant_purpose_idx', ['tenantId', 'purpose'])
// The one list of a tenant and purpose that issues take indices in.
@Index('credential_status_list_open_idx', ['tenantId', 'purpose'], {
  unique: true,
  where: `"filled_at" IS NULL`,
})
export class StatusListEntity {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'credential_status_list_pkey' })
  id: string;

  @Column({ name: 'tenant_id', type: 'varchar', length: 64 })
  tenantId: string;

  @ManyToOne('TenantEntity', { onDelete: 'CASCADE' })
  @JoinColumn({
    name: 'tenant_id',
    foreignKeyConstraintName: 'credential_status_list_tenant_id_fkey',
  })
  /** The foreign key only: tenants/ owns the tenant, named here rather than imported. */
  tenant?: object;

  /** `revocation` or `suspension`. */
  @Column({ type: 'varchar', length: 16 })
  purpose: string;

  /** How many entries the list has (bits). */
  @Column({ type: 'integer' })
  length: number;

  /** When an issue found no free index left: issues take indices only in the open (unfilled) list. */
  @Column({ name: 'filled_at', type: 'timestamptz', nullable: true })
  filledAt: Date | null;

  /** The bitstring, index 0 the most significant bit of the first byte (Bitstring Status List §2.1). */
  @Column({ type: 'bytea' })
  bits: Buffer;

  /** Grows with every change of a bit: the public list's ETag. */
  @Column({ type: 'integer', default: 1 })
  version: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
