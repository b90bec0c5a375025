import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { type EntityManager } from 'typeorm';
import { CLOCK, type Clock } from '../common/clock.js';
import { EventOutbox, type ChangeStatement, type DomainEvent } from '../events/event-outbox.js';
import { Metrics } from '../observability/metrics.js';
import { WebhookEventRepository, type EventRow } from './webhook-event.repository.js';

/** The outbox (events/event-outbox.ts) as webhooks keeps it: an event's row and its deliveries. */
@Injectable()
export class WebhookOutbox extends EventOutbox {
  constructor(
    private readonly events: WebhookEventRepository,
    private readonly metrics: Metrics,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    super();
  }

  // Counted when written: a caller's transaction that rolls back after it (rare) is counted too.
  async emit(manager: EntityManager, event: DomainEvent): Promise<void> {
    await this.events.write(manager, rowOf(event, this.clock()));
    this.metrics.webhookEvents.inc({ type: event.type });
  }

  async withChange<Row>(
    runner: Pick<EntityManager, 'query'>,
    change: ChangeStatement,
    event: DomainEvent,
  ): Promise<Row[]> {
    const rows = await this.events.writeWithChange<Row>(runner, change, rowOf(event, this.clock()));
    if (rows.length > 0) this.metrics.webhookEvents.inc({ type: event.type });
    return rows;
  }

  async inStatement<Row>(
    event: DomainEvent,
    statement: (eventRow: string) => Promise<Row[]>,
  ): Promise<Row[]> {
    const rows = await statement(JSON.stringify(rowOf(event, this.clock())));
    if (rows.length > 0) this.metrics.webhookEvents.inc({ type: event.type });
    return rows;
  }

  /** An event for one subscription only (`webhook.test`); answers its delivery's id. */
  async emitTo(
    manager: EntityManager,
    subscriptionId: string,
    event: DomainEvent,
  ): Promise<string> {
    const deliveryId = await this.events.writeFor(
      manager,
      subscriptionId,
      rowOf(event, this.clock()),
    );
    this.metrics.webhookEvents.inc({ type: event.type });
    return deliveryId;
  }
}

/** The event's row, with the payload every receiver gets: `{type, timestamp, data}`. */
function rowOf(event: DomainEvent, now: number): EventRow {
  return {
    id: randomUUID(),
    tenant_id: event.tenantId,
    type: event.type,
    body: JSON.stringify({
      type: event.type,
      timestamp: new Date(now).toISOString(),
      data: event.data,
    }),
  };
}
