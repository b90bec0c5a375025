import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomInt } from 'node:crypto';
import { type DataSource } from 'typeorm';
import { APP_CONFIG } from '../config/config.token.js';
import { type AppConfig } from '../config/app-config.js';
import { type OutboundResponse } from '../common/outbound.js';
import { rowsOf } from '../database/rows-of.js';
import { Metrics } from '../observability/metrics.js';

/** The first bytes of an answer the delivery log keeps. */
export const excerptBytes = 1024;

/** The delivery an attempt was made for. */
export interface AttemptedDelivery {
  id: string;
  attempts: number;
  subscription_id: string;
}

/**
 * What each delivery attempt leaves: its row in the delivery log, the delivery delivered, retried later
 * (backoff with jitter, Retry-After) or failed, and the subscription disabled after 410 or too many
 * failures in a row.
 */
@Injectable()
export class WebhookAttempts {
  private readonly logger = new Logger('Webhooks');

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly metrics: Metrics,
  ) {}

  /** The attempt's row, and what it means for the delivery and its subscription, in one transaction. */
  async record(
    delivery: AttemptedDelivery,
    started: Date,
    response: OutboundResponse | undefined,
    error: string | undefined,
  ): Promise<void> {
    const status = response?.status;
    const delivered = status !== undefined && status >= 200 && status < 300;
    const gone = status === 410;
    const { retryDelaysMs, disableAfterFailures } = this.config.webhooks;
    const retryIn = retryDelaysMs[delivery.attempts - 1];
    const finalState = delivered ? 'delivered' : gone || retryIn === undefined ? 'failed' : null;
    const waitMs =
      finalState === null ? Math.max(jittered(retryIn), retryAfterMs(response) ?? 0) : 0;
    this.metrics.webhookAttempts.inc({ outcome: finalState ?? 'retry' });
    const attempt = [
      delivery.id,
      delivery.attempts,
      started,
      status ?? null,
      Date.now() - started.getTime(),
      error?.slice(0, 500) ?? null,
      response === undefined ? null : excerptOf(response.body),
      finalState,
      waitMs,
    ];
    // The attempt's row and the delivery's new state, in one statement.
    const recordAttempt = `
         attempt AS (
           INSERT INTO webhook_attempt
             (delivery_id, attempt, started_at, status_code, duration_ms, error, response_excerpt)
           VALUES ($1, $2, $3, $4, $5, $6, $7)),
         delivery AS (
           UPDATE webhook_delivery
              SET state = coalesce($8, state), lease_until = NULL,
                  finished_at = CASE WHEN $8 IS NULL THEN NULL ELSE now() END,
                  next_attempt_at = now() + make_interval(secs => $9::double precision / 1000)
            WHERE id = $1)`;
    if (delivered) {
      // The common case touches the subscription only when it had failures to forget.
      await this.dataSource.query(
        `WITH ${recordAttempt}
         UPDATE webhook_subscription SET consecutive_failures = 0
          WHERE id = $10 AND consecutive_failures > 0`,
        [...attempt, delivery.subscription_id],
      );
      return;
    }
    const disabled = await this.dataSource.transaction(async (manager) => {
      await manager.query(`WITH ${recordAttempt} SELECT 1`, attempt);
      const [counted] = rowsOf<{ consecutive_failures: number }>(
        await manager.query(
          `UPDATE webhook_subscription SET consecutive_failures = consecutive_failures + 1
            WHERE id = $1 RETURNING consecutive_failures`,
          [delivery.subscription_id],
        ),
      );
      const failures = counted?.consecutive_failures ?? 0;
      const reason = gone
        ? 'the receiver answered 410 Gone'
        : failures >= disableAfterFailures
          ? `${failures} deliveries failed in a row`
          : undefined;
      if (reason === undefined) return undefined;
      const changed = await manager.query<unknown>(
        `UPDATE webhook_subscription SET enabled = false, disabled_reason = $2, updated_at = now()
          WHERE id = $1 AND enabled RETURNING id`,
        [delivery.subscription_id, reason],
      );
      return rowsOf(changed).length > 0 ? reason : undefined;
    });
    if (disabled !== undefined) {
      this.metrics.webhookAttempts.inc({ outcome: 'disabled' });
      this.logger.warn({
        msg: `webhook.disabled ${delivery.subscription_id}: ${disabled}`,
        event: 'webhook.disabled',
        subscriptionId: delivery.subscription_id,
        reason: disabled,
      });
    }
  }
}

/** ±10%, so that a receiver coming back is not met by every retry in the same second. */
function jittered(delayMs: number): number {
  const spread = Math.floor(delayMs / 10);
  return delayMs - spread + randomInt(2 * spread + 1);
}

/** `Retry-After` in seconds or as an HTTP date, capped at a day; undefined when absent or unreadable. */
function retryAfterMs(response: OutboundResponse | undefined): number | undefined {
  const header = response?.headers['retry-after'];
  if (header === undefined) return undefined;
  const milliseconds = /^\d+$/.test(header)
    ? Number(header) * 1000
    : Date.parse(header) - Date.now();
  return Number.isFinite(milliseconds)
    ? Math.min(Math.max(milliseconds, 0), 86_400_000)
    : undefined;
}

function excerptOf(body: Buffer): string {
  // Cut at a character boundary: the column counts characters, the cap bytes.
  return body
    .subarray(0, excerptBytes)
    .toString('utf8')
    .replace(/\uFFFD+$/, '');
}
