import { CreateDateColumn, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';

/**
 * A wallet's notification event received for an issued offer (OpenID4VCI 1.0 §11): one row per offer
 * and event, so that each event is recorded and sent out once (docs/oid4vci.md).
 */
@Entity({ name: 'oid4vci_notification_event' })
export class NotificationEventEntity {
  @PrimaryColumn({
    name: 'offer_id',
    type: 'uuid',
    primaryKeyConstraintName: 'oid4vci_notification_event_pkey',
  })
  offerId: string;

  /** The offers folder's row, by entity name: the foreign key without importing its class. */
  @ManyToOne('OfferEntity', { onDelete: 'CASCADE' })
  @JoinColumn({
    name: 'offer_id',
    foreignKeyConstraintName: 'oid4vci_notification_event_offer_id_fkey',
  })
  offer?: unknown;

  @PrimaryColumn({
    type: 'varchar',
    length: 32,
    primaryKeyConstraintName: 'oid4vci_notification_event_pkey',
  })
  event: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
