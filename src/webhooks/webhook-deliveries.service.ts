import { isUUID } from 'class-validator';
import { Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { type DataSource } from 'typeorm';
import {
  afterCursorSql,
  cursorPage,
  cursorTimeSql,
  cursorWindow,
  uuidPattern,
  type CursorPageQuery,
} from '../common/cursor-page.js';
import { DomainException } from '../common/problem/domain.exception.js';
import { rowsOf } from '../database/rows-of.js';
import { keepIdempotentAnswer } from '../idempotency/idempotent-answer.js';
import { type WebhookDeliveryPageDto } from './dto/webhook-delivery.dto.js';
import { WebhookOutbox } from './webhook-outbox.js';
import { WebhooksService } from './webhooks.service.js';

interface DeliveryRow {
  id: string;
  type: string;
  state: string;
  attempts: number;
  created_at: Date;
  cursor_at: string;
  next_attempt_at: Date;
  finished_at: Date | null;
  log: {
    attempt: number;
    startedAt: string;
    statusCode: number | null;
    durationMs: number;
    error: string | null;
    responseExcerpt: string | null;
    responseContentType: string | null;
  }[];
}

/** A subscription's deliveries: the log of what was sent and answered, a test event, redelivery. */
@Injectable()
export class WebhookDeliveriesService {
  private readonly logger = new Logger('Webhooks');

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly subscriptions: WebhooksService,
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
    // One row more than the page: whether another follows it.
    const [rows, [count]] = await Promise.all([
      this.dataSource.query<DeliveryRow[]>(
        `SELECT d.id, e.type, d.state, d.attempts, d.created_at, d.next_attempt_at, d.finished_at,
                ${cursorTimeSql('d.created_at')} AS cursor_at,
                coalesce((SELECT json_agg(json_build_object(
                   'attempt', a.attempt, 'startedAt', a.started_at, 'statusCode', a.status_code,
                   'durationMs', a.duration_ms, 'error', a.error, 'responseExcerpt', a.response_excerpt,
                   'responseContentType', a.response_content_type)
                   ORDER BY a.attempt)
                   FROM webhook_attempt a WHERE a.delivery_id = d.id), '[]') AS log
           FROM webhook_delivery d JOIN webhook_event e ON e.id = d.event_id
          WHERE d.subscription_id = $1
            ${after === undefined ? '' : `AND ${afterCursorSql('d.created_at', 'd.id', '$4', '$5::uuid')}`}
          ORDER BY d.created_at DESC, d.id LIMIT $2 OFFSET $3`,
        [
          subscription.id,
          window.size + 1,
          window.offset,
          ...(after === undefined ? [] : [after.at, after.id]),
        ],
      ),
      after === undefined
        ? this.dataSource.query<{ total: number }[]>(
            'SELECT count(*)::int AS total FROM webhook_delivery WHERE subscription_id = $1',
            [subscription.id],
          )
        : [undefined],
    ]);
    const total = count?.total;
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
    const changed = isUUID(deliveryId)
      ? rowsOf(
          await this.dataSource.query(
            `UPDATE webhook_delivery
                SET state = 'pending', attempts = 0, next_attempt_at = now(), finished_at = NULL,
                    lease_until = NULL
              WHERE id = $1 AND subscription_id = $2 RETURNING id`,
            [deliveryId.toLowerCase(), subscription.id],
          ),
        )
      : [];
    if (changed.length === 0) {
      throw new DomainException(
        'WEBHOOK_DELIVERY_NOT_FOUND',
        `The subscription has no delivery '${deliveryId}'.`,
      );
    }
    this.logger.log({ msg: `webhook.redeliver ${deliveryId}`, event: 'webhook.redeliver', id });
  }
}
