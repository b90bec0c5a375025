import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomInt } from 'node:crypto';
import { type DataSource } from 'typeorm';
import { APP_CONFIG } from '../config/config.token.js';
import { type AppConfig } from '../config/app-config.js';
import { type OutboundResponse } from '../common/outbound.js';
import { PreparedStatement } from '../database/prepared-statement.js';
import { rowsOf } from '../database/rows-of.js';
import { Metrics } from '../observability/metrics.js';

/** The most of an answer the delivery log keeps, and only of a text or JSON answer (docs/webhooks.md). */
export const excerptBytes = 256;

/**
 * The circuit of a subscription (docs/webhooks.md): after this many failed attempts in a row it pauses,
 * first for `firstPauseMs`, twice as long after each failed probe, at most `longestPauseMs`; then one
 * delivery at a time (the probe) until one is delivered.
 */
export const pauseAfterFailures = 5;
const firstPauseMs = 1_000;
const longestPauseMs = 3_600_000;

/** The delivery an attempt was made for. */
export interface AttemptedDelivery {
  id: string;
  attempts: number;
  subscription_id: string;
}

interface CountedFailure {
  failures: number;
  paused_until: Date | null;
  opened: boolean;
}

/**
 * What each delivery attempt leaves: its row in the delivery log, the delivery delivered, retried later
 * (backoff with jitter, Retry-After) or failed, the subscription's circuit paused after failures in a
 * row, and the subscription disabled after 410 or too many failures in a row. A delivery whose
 * subscription was deleted meanwhile is finished: nothing is left of it to record.
 */
@Injectable()
export class WebhookAttempts {
  private readonly logger = new Logger('Webhooks');
  /** The common case, once per delivery: prepared, so that PostgreSQL plans it once per connection. */
  private readonly delivered: PreparedStatement<{ count: number }>;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly metrics: Metrics,
  ) {
    this.delivered = new PreparedStatement(dataSource, 'webhook-delivered', recordDelivered);
  }

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
    const excerpt = excerptOf(response);
    const attempt = [
      delivery.id,
      delivery.attempts,
      started,
      status ?? null,
      Date.now() - started.getTime(),
      error?.slice(0, 500) ?? null,
      excerpt?.text ?? null,
      excerpt?.contentType ?? null,
      finalState,
      waitMs,
    ];
    if (delivered) {
      const [recorded] = await this.delivered.rows([...attempt, delivery.subscription_id]);
      if (recorded?.count === 0) this.gone(delivery);
      return;
    }
    const outcome = await this.dataSource.transaction(async (manager) => {
      // The subscription first, as a delete takes it before its deliveries: no deadlock between them.
      const [counted] = rowsOf<CountedFailure>(
        await manager.query(
          `WITH before AS (
             SELECT id, backoff_until FROM webhook_subscription WHERE id = $1 FOR NO KEY UPDATE)
           UPDATE webhook_subscription s
              SET consecutive_failures = s.consecutive_failures + 1,
                  backoff_ms = CASE WHEN ${opens} THEN ${nextPause} ELSE s.backoff_ms END,
                  backoff_until = CASE WHEN ${opens}
                                       THEN now() + ${nextPause} * interval '1 millisecond'
                                       ELSE s.backoff_until END
             FROM before WHERE s.id = before.id
           RETURNING s.consecutive_failures AS failures, s.backoff_until AS paused_until,
                     s.backoff_until IS DISTINCT FROM before.backoff_until AS opened`,
          [delivery.subscription_id, pauseAfterFailures, firstPauseMs, longestPauseMs],
        ),
      );
      if (counted === undefined) return undefined;
      await manager.query(`WITH ${recordAttempt} SELECT 1`, attempt);
      if (counted.opened) {
        // The backlog waits for the pause, out of the claim's way; deliveries in flight finish.
        await manager.query(
          `UPDATE webhook_delivery SET next_attempt_at = $2
            WHERE subscription_id = $1 AND state = 'pending' AND next_attempt_at < $2
              AND (lease_until IS NULL OR lease_until <= now())`,
          [delivery.subscription_id, counted.paused_until],
        );
      }
      const failures = counted.failures;
      const reason = gone
        ? 'the receiver answered 410 Gone'
        : failures >= disableAfterFailures
          ? `${failures} deliveries failed in a row`
          : undefined;
      if (reason === undefined) return { counted };
      const changed = await manager.query<unknown>(
        `UPDATE webhook_subscription SET enabled = false, disabled_reason = $2, updated_at = now()
          WHERE id = $1 AND enabled RETURNING id`,
        [delivery.subscription_id, reason],
      );
      return { counted, disabled: rowsOf(changed).length > 0 ? reason : undefined };
    });
    if (outcome === undefined) return this.gone(delivery);
    if (outcome.counted.opened) {
      this.logger.log({
        msg: `webhook.paused ${delivery.subscription_id} until ${outcome.counted.paused_until?.toISOString()}`,
        event: 'webhook.paused',
        subscriptionId: delivery.subscription_id,
        failures: outcome.counted.failures,
        until: outcome.counted.paused_until,
      });
    }
    if (outcome.disabled !== undefined) {
      this.metrics.webhookAttempts.inc({ outcome: 'disabled' });
      this.logger.warn({
        msg: `webhook.disabled ${delivery.subscription_id}: ${outcome.disabled}`,
        event: 'webhook.disabled',
        subscriptionId: delivery.subscription_id,
        reason: outcome.disabled,
      });
    }
  }

  /** Its subscription was deleted while it was sent: nothing to record, and nothing went wrong. */
  private gone(delivery: AttemptedDelivery): void {
    this.logger.debug({
      msg: `webhook.delivery-gone ${delivery.id}: its subscription was deleted during the attempt`,
      event: 'webhook.delivery-gone',
      deliveryId: delivery.id,
      subscriptionId: delivery.subscription_id,
    });
  }
}

/**
 * The delivery's new state and, if the delivery still exists, the attempt's row, from parameters $1 to
 * $10 (`record`'s `attempt`).
 */
const recordAttempt = `
  delivery AS (
    UPDATE webhook_delivery
       SET state = coalesce($9::varchar, state), lease_until = NULL,
           finished_at = CASE WHEN $9::varchar IS NULL THEN NULL ELSE now() END,
           next_attempt_at = now() + make_interval(secs => $10::double precision / 1000)
     WHERE id = $1::uuid RETURNING id),
  attempt AS (
    INSERT INTO webhook_attempt (delivery_id, attempt, started_at, status_code, duration_ms, error,
                                 response_excerpt, response_content_type)
    SELECT id, $2::int, $3::timestamptz, $4::int, $5::int, $6::varchar, $7::varchar, $8::varchar
      FROM delivery)`;

/**
 * A delivered attempt, which also closes the subscription's circuit ($11), unless another transaction
 * holds the subscription (a failure being recorded, a change, a delete): never waiting for it keeps this
 * free of deadlocks. Answers 0 when the delivery is gone.
 */
const recordDelivered = `
  WITH ${recordAttempt},
  closed AS (
    UPDATE webhook_subscription SET consecutive_failures = 0, backoff_ms = 0, backoff_until = NULL
     WHERE id IN (SELECT id FROM webhook_subscription
                   WHERE id = $11::uuid AND (consecutive_failures > 0 OR backoff_ms > 0)
                     FOR NO KEY UPDATE SKIP LOCKED))
  SELECT count(*)::int AS count FROM delivery`;

/** The circuit opens (again) with this failure: enough in a row, and not paused already. */
const opens = `s.consecutive_failures + 1 >= $2 AND (s.backoff_until IS NULL OR s.backoff_until <= now())`;
/** Twice the last pause, from $3 up to $4 milliseconds. */
const nextPause = `least(greatest(s.backoff_ms * 2, $3), $4)`;

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

/** Plain text and JSON only: what a receiver says about a failure; anything else is kept as a status. */
const textLike = /^(text\/plain|application\/(json|[a-z0-9.-]+\+json))$/;

/** The start of a text or JSON answer with its media type, or undefined for anything else. */
function excerptOf(
  response: OutboundResponse | undefined,
): { text: string; contentType: string } | undefined {
  const contentType = response?.headers['content-type']?.split(';')[0]?.trim().toLowerCase();
  if (response === undefined || contentType === undefined || !textLike.test(contentType)) {
    return undefined;
  }
  // Cut at a character boundary: the column counts characters, the cap bytes.
  const text = response.body
    .subarray(0, excerptBytes)
    .toString('utf8')
    .replace(/\uFFFD+$/, '');
  return { text, contentType: contentType.slice(0, 100) };
}
