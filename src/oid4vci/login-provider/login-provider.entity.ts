import { Column, CreateDateColumn, Entity, JoinColumn, OneToOne, PrimaryColumn } from 'typeorm';

/**
 * The OpenID provider a tenant's issuer sends people to log in at (docs/login-provider.md); a tenant
 * without a row uses the bundled realm.
 */
@Entity({ name: 'oid4vci_login_provider' })
export class LoginProviderEntity {
  @PrimaryColumn({
    name: 'tenant_id',
    type: 'varchar',
    length: 64,
    primaryKeyConstraintName: 'oid4vci_login_provider_pkey',
  })
  tenantId: string;

  /** The tenants feature's row, by entity name: the foreign key without importing its class. */
  @OneToOne('TenantEntity', { onDelete: 'CASCADE' })
  @JoinColumn({
    name: 'tenant_id',
    foreignKeyConstraintName: 'oid4vci_login_provider_tenant_id_fkey',
  })
  tenant?: unknown;

  /** The issuer identifier, exactly as its discovery document and ID tokens name it. */
  @Column({ type: 'varchar', length: 2048 })
  issuer: string;

  @Column({ name: 'client_id', type: 'varchar', length: 255 })
  clientId: string;

  /** The client secret, sealed for the tenant (login-provider.sealed-columns.ts); never answered. */
  @Column({ name: 'client_secret_sealed', type: 'bytea' })
  clientSecretSealed: Buffer;

  /** The master key that sealed it (null: before key ids were recorded; docs/architecture.md). */
  @Column({ name: 'master_key_id', type: 'varchar', length: 64, nullable: true })
  masterKeyId: string | null;

  @Column({ type: 'text', array: true })
  scopes: string[];

  /** When this provider was set: a save replaces the row's provider whole. */
  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
