import { isUUID } from 'class-validator';
import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { type DataSource } from 'typeorm';
import {
  cursorPage,
  cursorWindow,
  uuidPattern,
  type CursorPageQuery,
} from '../common/cursor-page.js';
import { DomainException } from '../common/problem/domain.exception.js';
import { keepIdempotentAnswer } from '../idempotency/idempotent-answer.js';
import { type WebhookDeliveryPageDto } from './dto/webhook-delivery.dto.js';
import { WebhookDeliveryRepository } from './webhook-delivery.repository.js';
import { WebhookOutbox } from './webhook-outbox.js';
import { WebhooksService } from './webhooks.service.js';

/** A subscription's deliveries: the log of what was sent and answered, a test event, redelivery. */
@Injectable()
export class WebhookDeliveriesService {
  private readonly logger = new Logger('Webhooks');

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly subscriptions: WebhooksService,
    private readonly deliveries: WebhookDeliveryRepository,
    private readonly outbox: WebhookOutbox,
  ) {}

  /** A `webhook.test` event for this subscription only, delivered like any other. */
  async test(owner: string | null, id: string): Promise<{ deliveryId: string }> {
    const subscription = await this.subscriptions.find(owner, id);
    return this.dataSource.transaction(async (manager) => {
      const deliveryId = await this.outbox.emitTo(manager, subscription.id, {
        type: 'webhook.test',
        tenantId: owner,
        data: { subscriptionId: subscription.id },
      });
      // Kept with the event, so a retry after an ambiguous 503 replays it (docs/api.md).
      await keepIdempotentAnswer(manager, { deliveryId });
      return { deliveryId };
    });
  }

  /** Newest first, each with its attempts, by page number or after a cursor (docs/api.md, Pages). */
  async list(
    owner: string | null,
    id: string,
    query: CursorPageQuery,
  ): Promise<WebhookDeliveryPageDto> {
    const subscription = await this.subscriptions.find(owner, id);
    const window = cursorWindow(query, uuidPattern);
    const { after } = window;
    const [rows, total] = await Promise.all([
      // One row more than the page: whether another follows it.
      this.deliveries.page(subscription.id, {
        offset: window.offset,
        limit: window.size + 1,
        after,
      }),
      after === undefined ? this.deliveries.count(subscription.id) : undefined,
    ]);
    const last = rows.at(Math.min(rows.length, window.size) - 1);
    const content = rows.slice(0, window.size).map((row) => ({
      id: row.id,
      eventType: row.type,
      state: row.state,
      attempts: row.attempts,
      createdAt: row.created_at.toISOString(),
      nextAttemptAt: row.state === 'pending' ? row.next_attempt_at.toISOString() : null,
      finishedAt: row.finished_at?.toISOString() ?? null,
      log: row.log.map((entry) => ({
        ...entry,
        startedAt: new Date(entry.startedAt).toISOString(),
      })),
    }));
    return cursorPage(
      content,
      window,
      total,
      last && { at: last.cursor_at, id: last.id },
      rows.length > window.size,
    );
  }

  /** Sends a delivery again, now, with a fresh retry schedule; its `webhook-id` stays the same. */
  async redeliver(owner: string | null, id: string, deliveryId: string): Promise<void> {
    const subscription = await this.subscriptions.find(owner, id);
    const redelivered =
      isUUID(deliveryId) &&
      (await this.deliveries.redeliver(subscription.id, deliveryId.toLowerCase()));
    if (!redelivered) {
      throw new DomainException(
        'WEBHOOK_DELIVERY_NOT_FOUND',
        `The subscription has no delivery '${deliveryId}'.`,
      );
    }
    this.logger.log({ msg: `webhook.redeliver ${deliveryId}`, event: 'webhook.redeliver', id });
  }
}
