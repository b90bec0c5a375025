import {
  Column,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
  type Relation,
} from 'typeorm';
import { WebhookDeliveryEntity } from './webhook-delivery.entity.js';

/** One try of a delivery: when, what answered, how long it took, the start of the answer. */
@Entity({ name: 'webhook_attempt' })
@Index('webhook_attempt_delivery_idx', ['deliveryId', 'attempt'])
export class WebhookAttemptEntity {
  @PrimaryGeneratedColumn('increment', {
    type: 'bigint',
    primaryKeyConstraintName: 'webhook_attempt_pkey',
  })
  id: string;

  @Column({ name: 'delivery_id', type: 'uuid' })
  deliveryId: string;

  @ManyToOne(() => WebhookDeliveryEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'delivery_id', foreignKeyConstraintName: 'webhook_attempt_delivery_id_fkey' })
  delivery?: Relation<WebhookDeliveryEntity>;

  @Column({ type: 'integer' })
  attempt: number;

  @Column({ name: 'started_at', type: 'timestamptz' })
  startedAt: Date;

  @Column({ name: 'status_code', type: 'integer', nullable: true })
  statusCode: number | null;

  @Column({ name: 'duration_ms', type: 'integer' })
  durationMs: number;

  @Column({ type: 'varchar', length: 500, nullable: true })
  error: string | null;

  /** The first 256 bytes of a text or JSON answer (1 kB of any answer before); null for others. */
  @Column({ name: 'response_excerpt', type: 'varchar', length: 1024, nullable: true })
  responseExcerpt: string | null;

  /** The media type of the answer whose excerpt is kept. */
  @Column({ name: 'response_content_type', type: 'varchar', length: 100, nullable: true })
  responseContentType: string | null;
}
