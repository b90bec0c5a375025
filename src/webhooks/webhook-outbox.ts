import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { type EntityManager } from 'typeorm';
import { Metrics } from '../observability/metrics.js';

export const webhookEventTypes = [
  'tenant.created',
  'tenant.updated',
  'tenant.deleted',
  'credential.issued',
  'credential.status.changed',
  'webhook.test',
] as const;
export type WebhookEventType = (typeof webhookEventTypes)[number];

export interface WebhookEvent {
  type: WebhookEventType;
  /** The tenant it happened to; its subscriptions and the all-tenant ones receive it. */
  tenantId: string | null;
  /** Ids and changed fields only: never key material or a credential subject's claims. */
  data: Record<string, unknown>;
}

/**
 * The transactional outbox: an event and its deliveries are written in the caller's transaction, so
 * there is no change without its event and no event without its change.
 */
@Injectable()
export class WebhookOutbox {
  constructor(private readonly metrics: Metrics) {}

  // Counted when written: a caller's transaction that rolls back after it (rare) is counted too.
  async emit(manager: EntityManager, event: WebhookEvent): Promise<void> {
    await manager.query(`WITH ${eventStatements(1)} SELECT 1`, eventParameters(event));
    this.metrics.webhookEvents.inc({ type: event.type });
  }

  /**
   * Runs `change`, one data-modifying statement with RETURNING, and writes the event in the same
   * statement when the change touched a row: atomic without a transaction of its own. Answers the rows
   * of `select` (default: the change's). `before` are further WITH items that run first, numbered in
   * `change.parameters` like the change itself.
   */
  async withChange<Row>(
    runner: Pick<EntityManager, 'query'>,
    change: { sql: string; parameters: unknown[]; before?: string; select?: string },
    event: WebhookEvent,
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
    event: WebhookEvent,
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

function eventParameters(event: WebhookEvent): unknown[] {
  return [randomUUID(), event.tenantId, event.type, bodyOf(event)];
}

/** The payload every receiver gets: `{type, timestamp, data}`. */
function bodyOf(event: WebhookEvent): string {
  return JSON.stringify({
    type: event.type,
    timestamp: new Date().toISOString(),
    data: event.data,
  });
}
