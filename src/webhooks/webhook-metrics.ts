import { Injectable } from '@nestjs/common';
import { Metrics } from '../observability/metrics.js';
import { type Backlog } from './webhook-delivery.rows.js';
import { WebhookDeliveryRepository } from './webhook-delivery.repository.js';

/** The delivery queue as Prometheus sees it at each scrape: one query serves the three gauges. */
@Injectable()
export class WebhookMetrics {
  private backlog: { at: number; value: Promise<Backlog> } | undefined;

  constructor(
    private readonly deliveries: WebhookDeliveryRepository,
    metrics: Metrics,
  ) {
    metrics.gauge(
      'webhook_queue_depth',
      'Deliveries waiting to be sent, of every instance (pending, including retries)',
      async () => (await this.read()).depth,
    );
    metrics.gauge(
      'webhook_oldest_pending_age_seconds',
      'Age of the oldest delivery still waiting to be sent; 0 when none waits',
      async () => (await this.read()).oldestSeconds,
    );
    metrics.gauge(
      'webhook_subscriptions_paused',
      'Subscriptions whose receiver failed too often in a row: none of their deliveries is sent until the pause ends',
      async () => (await this.read()).paused,
    );
  }

  private read(): Promise<Backlog> {
    const now = Date.now();
    if (this.backlog === undefined || now - this.backlog.at > 1_000) {
      this.backlog = { at: now, value: this.deliveries.backlog() };
    }
    return this.backlog.value;
  }
}
