import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomInt } from 'node:crypto';
import { type DataSource } from 'typeorm';
import { Settings } from '../config/settings.js';
import { type OutboundResponse } from '../common/outbound.js';
import { CLOCK, type Clock } from '../common/clock.js';
import { Metrics } from '../observability/metrics.js';
import { Coalesced } from '../common/coalesced.js';
import { type AttemptRecord, type DeliveredAttempt } from './webhook-delivery.rows.js';
import { WebhookDeliveryRepository } from './webhook-delivery.repository.js';
import {
  type CircuitSettings,
  WebhookSubscriptionRepository,
} from './webhook-subscription.repository.js';

/** The most of an answer the delivery log keeps, and only of a text or JSON answer (docs/webhooks.md). */
export const excerptBytes = 256;

/**
 * The circuit of a subscription (docs/webhooks.md): after this many failed attempts in a row it pauses,
 * first for `firstPauseMs`, twice as long after each failed probe, at most `longestPauseMs`; then one
 * delivery at a time (the probe) until one is delivered.
 */
export const pauseAfterFailures = 5;
const circuit: CircuitSettings = {
  pauseAfterFailures,
  firstPauseMs: 1_000,
  longestPauseMs: 3_600_000,
};

/** The delivery an attempt was made for. */
export interface AttemptedDelivery {
  id: string;
  attempts: number;
  subscription_id: string;
  claim_id: string;
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
  /**
   * Delivered attempts recorded together, at most 64 a statement; false for one not recorded so (held
   * by another transaction, gone, or its batch failed), which is then recorded on its own.
   */
  private readonly delivered = new Coalesced<DeliveredAttempt, boolean>(async (batch) => {
    const recorded = await this.deliveries
      .recordDelivered(batch, true)
      .catch(() => new Set<string>());
    return batch.map(({ attempt }) => recorded.has(attempt.deliveryId));
  }, 64);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly subscriptions: WebhookSubscriptionRepository,
    private readonly deliveries: WebhookDeliveryRepository,
    private readonly settings: Settings,
    private readonly metrics: Metrics,
    @Inject(CLOCK) private readonly clock: Clock,
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
    const retryDelaysMs = this.settings.WEBHOOK_RETRY_DELAYS_MS;
    const disableAfterFailures = this.settings.WEBHOOK_DISABLE_AFTER_FAILURES;
    const retryIn = retryDelaysMs[delivery.attempts - 1];
    const finalState = delivered ? 'delivered' : gone || retryIn === undefined ? 'failed' : null;
    const waitMs =
      finalState === null
        ? Math.max(jittered(retryIn), retryAfterMs(response, this.clock()) ?? 0)
        : 0;
    this.metrics.webhookAttempts.inc({ outcome: finalState ?? 'retry' });
    const excerpt = excerptOf(response);
    const attempt: AttemptRecord = {
      deliveryId: delivery.id,
      claimId: delivery.claim_id,
      attempt: delivery.attempts,
      startedAt: started,
      statusCode: status ?? null,
      durationMs: Date.now() - started.getTime(),
      error: error?.slice(0, 500) ?? null,
      responseExcerpt: excerpt?.text ?? null,
      responseContentType: excerpt?.contentType ?? null,
      finalState,
      waitMs,
    };
    if (delivered) {
      if (!(await this.recordDelivered(attempt, delivery.subscription_id))) this.gone(delivery);
      return;
    }
    const outcome = await this.dataSource.transaction(async (manager) => {
      // The subscription first, as a delete takes it before its deliveries: no deadlock between them.
      const counted = await this.subscriptions.countFailure(
        manager,
        delivery.subscription_id,
        circuit,
      );
      if (counted === undefined) return undefined;
      await this.deliveries.recordAttempt(manager, attempt);
      if (counted.opened) {
        // The backlog waits for the pause, out of the claim's way; deliveries in flight finish.
        await this.deliveries.postpone(manager, delivery.subscription_id, counted.paused_until);
      }
      const failures = counted.failures;
      const reason = gone
        ? 'the receiver answered 410 Gone'
        : failures >= disableAfterFailures
          ? `${failures} deliveries failed in a row`
          : undefined;
      if (reason === undefined) return { counted };
      const disabled = await this.subscriptions.disable(manager, delivery.subscription_id, reason);
      return { counted, disabled: disabled ? reason : undefined };
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

  /**
   * With the others delivered meanwhile; on its own when that did not record it, so that one attempt's
   * failure (or a row another transaction holds) is its own, not its batch's. False when it is gone.
   */
  private async recordDelivered(attempt: AttemptRecord, subscriptionId: string): Promise<boolean> {
    const delivered = { attempt, subscriptionId };
    if (await this.delivered.add(delivered)) return true;
    return (await this.deliveries.recordDelivered([delivered])).has(attempt.deliveryId);
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

/** ±10%, so that a receiver coming back is not met by every retry in the same second. */
function jittered(delayMs: number): number {
  const spread = Math.floor(delayMs / 10);
  return delayMs - spread + randomInt(2 * spread + 1);
}

/** `Retry-After` in seconds or as an HTTP date, capped at a day; undefined when absent or unreadable. */
function retryAfterMs(response: OutboundResponse | undefined, now: number): number | undefined {
  const header = response?.headers['retry-after'];
  if (header === undefined) return undefined;
  const milliseconds = /^\d+$/.test(header) ? Number(header) * 1000 : Date.parse(header) - now;
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
    .replace(/\uFFFD+$/, '')
    // PostgreSQL's text holds no NUL character.
    .replaceAll('\u0000', '\uFFFD');
  return { text, contentType: contentType.slice(0, 100) };
}
