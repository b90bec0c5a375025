import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { type DataSource } from 'typeorm';
import { Metrics } from '../observability/metrics.js';

interface Backlog {
  depth: number;
  oldestSeconds: number;
  paused: number;
}

/** The delivery queue as Prometheus sees it at each scrape: one query serves the three gauges. */
@Injectable()
export class WebhookMetrics {
  private backlog: { at: number; value: Promise<Backlog> } | undefined;

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
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
      this.backlog = { at: now, value: this.query() };
    }
    return this.backlog.value;
  }

  private async query(): Promise<Backlog> {
    const [row] = await this.dataSource.query<{ depth: number; oldest: number; paused: number }[]>(
      `SELECT count(*)::int AS depth,
              coalesce(extract(epoch FROM now() - min(created_at)), 0)::float8 AS oldest,
              (SELECT count(*)::int FROM webhook_subscription
                WHERE backoff_until > now() AND enabled) AS paused
         FROM webhook_delivery WHERE state = 'pending'`,
    );
    return { depth: row?.depth ?? 0, oldestSeconds: row?.oldest ?? 0, paused: row?.paused ?? 0 };
  }
}
