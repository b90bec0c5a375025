import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
  type Relation,
} from 'typeorm';
import { WebhookEventEntity } from './webhook-event.entity.js';
import { WebhookSubscriptionEntity } from './webhook-subscription.entity.js';

/** One event for one subscription; its id is the `webhook-id`, the same on every retry. */
@Entity({ name: 'webhook_delivery' })
@Index('webhook_delivery_due_idx', ['nextAttemptAt'], { where: `"state" = 'pending'` })
@Index('webhook_delivery_subscription_idx', ['subscriptionId', 'createdAt'])
@Index('webhook_delivery_event_idx', ['eventId'])
@Index('webhook_delivery_leased_idx', ['leaseUntil'], { where: `"lease_until" IS NOT NULL` })
@Index('webhook_delivery_pending_idx', ['subscriptionId', 'nextAttemptAt'], {
  where: `"state" = 'pending'`,
})
export class WebhookDeliveryEntity {
  @PrimaryColumn({ type: 'uuid', primaryKeyConstraintName: 'webhook_delivery_pkey' })
  id: string;

  @Column({ name: 'subscription_id', type: 'uuid' })
  subscriptionId: string;

  @ManyToOne(() => WebhookSubscriptionEntity, { onDelete: 'CASCADE' })
  @JoinColumn({
    name: 'subscription_id',
    foreignKeyConstraintName: 'webhook_delivery_subscription_id_fkey',
  })
  subscription?: Relation<WebhookSubscriptionEntity>;

  @Column({ name: 'event_id', type: 'uuid' })
  eventId: string;

  @ManyToOne(() => WebhookEventEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'event_id', foreignKeyConstraintName: 'webhook_delivery_event_id_fkey' })
  event?: Relation<WebhookEventEntity>;

  /** `pending`, `delivered` or `failed` (retries exhausted or the subscription gone). */
  @Column({ type: 'varchar', length: 16, default: 'pending' })
  state: string;

  @Column({ type: 'integer', default: 0 })
  attempts: number;

  @Column({ name: 'next_attempt_at', type: 'timestamptz', default: () => 'now()' })
  nextAttemptAt: Date;

  /** Until then one instance owns the delivery; an instance that dies lets it lapse. */
  @Column({ name: 'lease_until', type: 'timestamptz', nullable: true })
  leaseUntil: Date | null;

  /** The claim that holds the lease: only its attempt's answer decides the delivery. */
  @Column({ name: 'claim_id', type: 'uuid', nullable: true })
  claimId: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'finished_at', type: 'timestamptz', nullable: true })
  finishedAt: Date | null;
}
