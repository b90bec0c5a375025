import { Injectable } from '@nestjs/common';
import { type EntityManager } from 'typeorm';

/** The notification events received (oid4vci_notification_event). */
@Injectable()
export class NotificationsRepository {
  /**
   * Records the event for the offer in the caller's transaction; false when it was recorded before
   * (a concurrent first one holds the key until it commits or rolls back, then decides).
   */
  async record(manager: EntityManager, offerId: string, event: string): Promise<boolean> {
    const rows = await manager.query<unknown[]>(
      `INSERT INTO oid4vci_notification_event (offer_id, event) VALUES ($1, $2)
       ON CONFLICT DO NOTHING RETURNING 1`,
      [offerId, event],
    );
    return rows.length > 0;
  }
}
