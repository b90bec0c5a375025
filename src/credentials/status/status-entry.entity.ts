import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
} from 'typeorm';

/** The index a credential holds in one of its tenant's status lists, for one purpose. */
@Entity({ name: 'credential_status_entry' })
@Index('credential_status_entry_credential_idx', ['tenantId', 'credentialId', 'purpose'], {
  unique: true,
})
export class StatusEntryEntity {
  @PrimaryColumn({
    name: 'list_id',
    type: 'uuid',
    primaryKeyConstraintName: 'credential_status_entry_pkey',
  })
  listId: string;

  @PrimaryColumn({
    name: 'list_index',
    type: 'integer',
    primaryKeyConstraintName: 'credential_status_entry_pkey',
  })
  listIndex: number;

  @Column({ name: 'tenant_id', type: 'varchar', length: 64 })
  tenantId: string;

  // Its tenant's row, which the issuance record locks anyway, not the list's row every issue shares.
  @ManyToOne('TenantEntity', { onDelete: 'CASCADE' })
  @JoinColumn({
    name: 'tenant_id',
    foreignKeyConstraintName: 'credential_status_entry_tenant_id_fkey',
  })
  /** The foreign key only: tenants/ owns the tenant, named here rather than imported. */
  tenant?: object;

  @Column({ name: 'credential_id', type: 'text' })
  credentialId: string;

  @Column({ type: 'varchar', length: 16 })
  purpose: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
