import { Column, CreateDateColumn, Entity, Index, PrimaryColumn } from 'typeorm';

/** The outbox: one row per event, written in the transaction of the change that caused it. */
@Entity({ name: 'webhook_event' })
@Index('webhook_event_created_idx', ['createdAt'])
export class WebhookEventEntity {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'webhook_event_pkey' })
  id: string;

  /** No foreign key: a tenant's deletion event outlives the tenant. */
  @Column({ name: 'tenant_id', type: 'varchar', length: 64, nullable: true })
  tenantId: string | null;

  @Column({ type: 'varchar', length: 64 })
  type: string;

  /** The JSON body exactly as it is signed and sent. */
  @Column({ type: 'text' })
  body: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
