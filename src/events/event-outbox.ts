import { type EntityManager } from 'typeorm';

/** What integrators can subscribe to (docs/webhooks.md). */
export const eventTypes = [
  'tenant.created',
  'tenant.updated',
  'tenant.deleted',
  'credential.issued',
  'credential.status.changed',
  'oid4vci.offer.accepted',
  'oid4vci.offer.expired',
  'oid4vci.authorization.denied',
  'oid4vci.credential.accepted',
  'oid4vci.credential.failed',
  'oid4vci.credential.deleted',
  'presentation.verified',
  'presentation.failed',
  'certificate.expiring',
  'certificate.expired',
  'webhook.test',
] as const;
export type EventType = (typeof eventTypes)[number];

export interface DomainEvent {
  type: EventType;
  /** The tenant it happened to; its subscriptions and the all-tenant ones receive it. */
  tenantId: string | null;
  /** Ids and changed fields only: never key material or a credential subject's claims. */
  data: Record<string, unknown>;
}

/** A data-modifying statement with RETURNING, its parameters numbered from $1. */
export interface ChangeStatement {
  sql: string;
  parameters: unknown[];
}

/**
 * The transactional outbox every feature writes its events to, in the transaction of the change that
 * caused them, so there is no change without its event and no event without its change. The webhooks
 * feature provides it (it owns the event and delivery tables); features depend on this port only, so
 * that webhooks may depend on them (docs/architecture.md).
 */
export abstract class EventOutbox {
  /** Writes the event in the caller's transaction. */
  abstract emit(manager: EntityManager, event: DomainEvent): Promise<void>;

  /**
   * Runs `change` and writes the event in the same statement when the change touched a row: atomic
   * without a transaction of its own (the issue path's one round trip, docs/performance.md).
   */
  abstract withChange<Row>(
    runner: Pick<EntityManager, 'query'>,
    change: ChangeStatement,
    event: DomainEvent,
  ): Promise<Row[]>;

  /**
   * For the one statement that writes its event itself, the issue statement
   * (credentials/issuing/issued-credential.repository.ts): runs `statement` with the event's row as one
   * JSON object (`id`, `tenant_id`, `type`, `body`, as `jsonb_to_record` reads it), which the
   * statement passes to `enqueue_webhook_event`, the function webhooks publishes for it: the event with
   * one delivery per enabled subscription that wants it, by the rule of its own statements
   * (webhooks/webhook-event.repository.ts). The event counts as written when the statement answered a
   * row.
   */
  abstract inStatement<Row>(
    event: DomainEvent,
    statement: (eventRow: string) => Promise<Row[]>,
  ): Promise<Row[]>;
}
