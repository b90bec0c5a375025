import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { type DataSource, type EntityManager } from 'typeorm';
import { type ChangeStatement } from '../events/event-outbox.js';

/** An event's row: its body is the JSON exactly as it is signed and sent. */
export interface EventRow {
  id: string;
  tenant_id: string | null;
  type: string;
  body: string;
}

/**
 * The outbox's tables: each event (webhook_event) with the deliveries it fans out to (webhook_delivery),
 * written in the transaction of the change that caused it, and removed after the retention time.
 */
@Injectable()
export class WebhookEventRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The event and its deliveries, in the caller's transaction. */
  async write(manager: EntityManager, event: EventRow): Promise<void> {
    await manager.query(emitStatement, [JSON.stringify(event)]);
  }

  /** The change's rows; the event and its deliveries written with it, when it touched a row. */
  writeWithChange<Row>(
    runner: Pick<EntityManager, 'query'>,
    change: ChangeStatement,
    event: EventRow,
  ): Promise<Row[]> {
    // The change's parameters come first: the event is one jsonb parameter after them, so that its
    // number is the one computed part and the event's part is a constant. `event` is one row when the
    // change touched any, none otherwise: naming it in FROM runs it, once.
    const eventParameter = change.parameters.length + 1;
    return runner.query<Row[]>(
      `WITH change AS (${change.sql}),
            event AS (SELECT enqueue_webhook_event($${eventParameter}::jsonb)
                       WHERE EXISTS (SELECT 1 FROM change))
       SELECT change.* FROM change, event`,
      [...change.parameters, JSON.stringify(event)],
    );
  }

  /** The event with one delivery, to this subscription only; answers the delivery's id. */
  async writeFor(manager: EntityManager, subscriptionId: string, event: EventRow): Promise<string> {
    const deliveryId = randomUUID();
    await manager.query(
      `INSERT INTO webhook_event (id, tenant_id, type, body) VALUES ($1, $2, $3, $4)`,
      [event.id, event.tenant_id, event.type, event.body],
    );
    await manager.query(
      `INSERT INTO webhook_delivery (id, subscription_id, event_id) VALUES ($1, $2, $3)`,
      [deliveryId, subscriptionId, event.id],
    );
    return deliveryId;
  }

  /**
   * Removes up to `batch` events older than `days` none of whose deliveries is pending (their
   * deliveries and attempts go with them), one instance at a time; answers how many.
   */
  prune(days: number, batch: number): Promise<number> {
    return this.dataSource.transaction(async (manager) => {
      const [lock] = await manager.query<{ locked: boolean }[]>(
        `SELECT pg_try_advisory_xact_lock(hashtext('webhook-retention')) AS locked`,
      );
      if (lock?.locked !== true) return 0;
      const removed = await manager.query<unknown>(
        `DELETE FROM webhook_event WHERE id IN (
           SELECT e.id FROM webhook_event e
            WHERE e.created_at < now() - make_interval(days => $1)
              AND NOT EXISTS (SELECT 1 FROM webhook_delivery d
                               WHERE d.event_id = e.id AND d.state = 'pending')
            LIMIT $2)`,
        [days, batch],
      );
      return Array.isArray(removed) && typeof removed[1] === 'number' ? removed[1] : 0;
    });
  }
}

/**
 * The event (EventRow as one jsonb, $1) and one delivery per enabled subscription that wants it: the
 * tenant's and the all-tenant ones, all or a list of event types (docs/webhooks.md). That rule is
 * `enqueue_webhook_event`'s (migrations/1795799200000-published-statements.ts), which webhooks
 * publishes to the statements of other folders that write an event with their change (the issue
 * statement, credentials/issuing/issued-credential.repository.ts): it is written once, there.
 */
const emitStatement = `SELECT enqueue_webhook_event($1::jsonb)`;
