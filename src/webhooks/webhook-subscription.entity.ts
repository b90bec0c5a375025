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

/** Where a tenant's events go (or every tenant's, when `tenantId` is null), with its sealed secret. */
@Entity({ name: 'webhook_subscription' })
@Index('webhook_subscription_tenant_idx', ['tenantId', 'createdAt'])
@Index('webhook_subscription_paused_idx', ['backoffUntil'], {
  where: `"backoff_until" IS NOT NULL`,
})
export class WebhookSubscriptionEntity {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'webhook_subscription_pkey' })
  id: string;

  @Column({ name: 'tenant_id', type: 'varchar', length: 64, nullable: true })
  tenantId: string | null;

  @ManyToOne('TenantEntity', { onDelete: 'CASCADE' })
  @JoinColumn({
    name: 'tenant_id',
    foreignKeyConstraintName: 'webhook_subscription_tenant_id_fkey',
  })
  /** The foreign key only: tenants/ owns the tenant, named here rather than imported. */
  tenant?: object;

  @Column({ type: 'varchar', length: 2048 })
  url: string;

  /** The event types it receives; empty: all. */
  @Column({ type: 'text', array: true, default: () => "'{}'" })
  events: string[];

  @Column({ type: 'varchar', length: 500, nullable: true })
  description: string | null;

  @Column({ type: 'boolean', default: true })
  enabled: boolean;

  @Column({ name: 'secret_sealed', type: 'bytea' })
  secretSealed: Buffer;

  /** Which master key sealed it; null: sealed before key ids were recorded, under the key of the time. */
  @Column({ name: 'secret_master_key_id', type: 'varchar', length: 32, nullable: true })
  secretMasterKeyId: string | null;

  /** After a rotation the old secret signs too, until `previousSecretUntil`. */
  @Column({ name: 'previous_secret_sealed', type: 'bytea', nullable: true })
  previousSecretSealed: Buffer | null;

  @Column({ name: 'previous_secret_master_key_id', type: 'varchar', length: 32, nullable: true })
  previousSecretMasterKeyId: string | null;

  @Column({ name: 'previous_secret_until', type: 'timestamptz', nullable: true })
  previousSecretUntil: Date | null;

  @Column({ name: 'consecutive_failures', type: 'integer', default: 0 })
  consecutiveFailures: number;

  /** The circuit: no delivery of it is sent before then (docs/webhooks.md). */
  @Column({ name: 'backoff_until', type: 'timestamptz', nullable: true })
  backoffUntil: Date | null;

  /** The last pause, doubled at the next failed probe; 0 once a delivery succeeds. */
  @Column({ name: 'backoff_ms', type: 'integer', default: 0 })
  backoffMs: number;

  @Column({ name: 'disabled_reason', type: 'varchar', length: 200, nullable: true })
  disabledReason: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
