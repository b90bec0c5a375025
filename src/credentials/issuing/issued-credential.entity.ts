import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
} from 'typeorm';

/** One credential a tenant issued: what listing and status management need, never its claims. */
@Entity({ name: 'issued_credential' })
@Index('issued_credential_tenant_created_idx', ['tenantId', 'createdAt'])
export class IssuedCredentialEntity {
  @PrimaryColumn({
    name: 'tenant_id',
    type: 'varchar',
    length: 64,
    primaryKeyConstraintName: 'issued_credential_pkey',
  })
  tenantId: string;

  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'issued_credential_pkey' })
  id: string;

  @ManyToOne('TenantEntity', { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'tenant_id', foreignKeyConstraintName: 'issued_credential_tenant_id_fkey' })
  /** The foreign key only: tenants/ owns the tenant, named here rather than imported. */
  tenant?: object;

  @Column({ type: 'text', array: true })
  types: string[];

  @Column({ type: 'varchar', length: 32 })
  cryptosuite: string;

  /** `ldp_vc`, `dc+sd-jwt` or `mso_mdoc` (OpenID4VCI 1.0 Appendix A); for the last two `cryptosuite` is the JOSE alg. */
  @Column({ type: 'varchar', length: 16, default: 'ldp_vc' })
  format: string;

  /** The OpenID4VCI offer it was issued for; null for POST /credentials/issue. No key: offers expire. */
  @Column({ name: 'offer_id', type: 'uuid', nullable: true })
  offerId: string | null;

  @Column({ name: 'configuration_id', type: 'varchar', length: 64, nullable: true })
  configurationId: string | null;

  /** Who issued it: the caller's username, or its subject. */
  @Column({ name: 'issued_by', type: 'varchar', length: 255 })
  issuedBy: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
