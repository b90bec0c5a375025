import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { type EntityManager } from 'typeorm';

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
  tenantId: string;
  /** Ids and changed fields only: never key material or a credential subject's claims. */
  data: Record<string, unknown>;
}

/**
 * The transactional outbox: an event and its deliveries are written in the caller's transaction, so
 * there is no change without its event and no event without its change.
 */
@Injectable()
export class WebhookOutbox {
  async emit(manager: EntityManager, event: WebhookEvent): Promise<void> {
    await manager.query(
      `WITH event AS (
         INSERT INTO webhook_event (id, tenant_id, type, body) VALUES ($1, $2, $3, $4) RETURNING id)
       INSERT INTO webhook_delivery (id, subscription_id, event_id)
       SELECT gen_random_uuid(), s.id, event.id FROM webhook_subscription s, event
        WHERE s.enabled AND (s.tenant_id = $2 OR s.tenant_id IS NULL)
          AND (cardinality(s.events) = 0 OR $3 = ANY (s.events))`,
      [randomUUID(), event.tenantId, event.type, bodyOf(event)],
    );
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
    return deliveryId;
  }
}

/** The payload every receiver gets: `{type, timestamp, data}`. */
function bodyOf(event: WebhookEvent): string {
  return JSON.stringify({
    type: event.type,
    timestamp: new Date().toISOString(),
    data: event.data,
  });
}
