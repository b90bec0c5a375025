import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { type EntityManager } from 'typeorm';
import { EventOutbox, type ChangeStatement, type DomainEvent } from '../events/event-outbox.js';
import { Metrics } from '../observability/metrics.js';

/** The outbox (events/event-outbox.ts) as webhooks keeps it: an event's row and its deliveries. */
@Injectable()
export class WebhookOutbox extends EventOutbox {
  constructor(private readonly metrics: Metrics) {
    super();
  }

  // Counted when written: a caller's transaction that rolls back after it (rare) is counted too.
  async emit(manager: EntityManager, event: DomainEvent): Promise<void> {
    await manager.query(`WITH ${eventStatements(1)} SELECT 1`, eventParameters(event));
    this.metrics.webhookEvents.inc({ type: event.type });
  }

  async withChange<Row>(
    runner: Pick<EntityManager, 'query'>,
    change: ChangeStatement,
    event: DomainEvent,
  ): Promise<Row[]> {
    const first = change.parameters.length + 1;
    const rows = await runner.query<Row[]>(
      `WITH ${change.before === undefined ? '' : `${change.before}, `}change AS (${change.sql}),
            ${eventStatements(first, 'EXISTS (SELECT 1 FROM change)')}
       ${change.select ?? 'SELECT * FROM change'}`,
      [...change.parameters, ...eventParameters(event)],
    );
    if (rows.length > 0) this.metrics.webhookEvents.inc({ type: event.type });
    return rows;
  }

  /** An event for one subscription only (`webhook.test`); answers its delivery's id. */
  async emitTo(
    manager: EntityManager,
    subscriptionId: string,
    event: DomainEvent,
  ): Promise<string> {
    const eventId = randomUUID();
    const deliveryId = randomUUID();
    await manager.query(
      `INSERT INTO webhook_event (id, tenant_id, type, body) VALUES ($1, $2, $3, $4)`,
      [eventId, event.tenantId, event.type, bodyOf(event)],
    );
    await manager.query(
      `INSERT INTO webhook_delivery (id, subscription_id, event_id) VALUES ($1, $2, $3)`,
      [deliveryId, subscriptionId, eventId],
    );
    this.metrics.webhookEvents.inc({ type: event.type });
    return deliveryId;
  }
}

/**
 * The event's row and one delivery per enabled subscription that wants it (the tenant's and the
 * all-tenant ones), as two statements of a WITH, from parameter `$first` on (eventParameters' order).
 */
function eventStatements(first: number, when = 'true'): string {
  const [id, tenant, type, body] = [0, 1, 2, 3].map((offset) => `$${first + offset}`);
  return `event AS (
       INSERT INTO webhook_event (id, tenant_id, type, body)
       SELECT ${id}::uuid, ${tenant}::varchar, ${type}::varchar, ${body}::text WHERE ${when}
       RETURNING id, tenant_id, type),
     deliveries AS (
       INSERT INTO webhook_delivery (id, subscription_id, event_id)
       SELECT gen_random_uuid(), s.id, event.id FROM webhook_subscription s, event
        WHERE s.enabled AND (s.tenant_id = event.tenant_id OR s.tenant_id IS NULL)
          AND (cardinality(s.events) = 0 OR event.type = ANY (s.events)))`;
}

function eventParameters(event: DomainEvent): unknown[] {
  return [randomUUID(), event.tenantId, event.type, bodyOf(event)];
}

/** The payload every receiver gets: `{type, timestamp, data}`. */
function bodyOf(event: DomainEvent): string {
  return JSON.stringify({
    type: event.type,
    timestamp: new Date().toISOString(),
    data: event.data,
  });
}
