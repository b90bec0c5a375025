import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { type PoolClient, type QueryResult } from 'pg';
import { type DataSource, type EntityManager } from 'typeorm';
import { type Cursor } from '../common/cursor-page.js';
import { poolOf } from '../database/bounded-pool.js';
import { retriedOnStalePlan } from '../database/stale-plan-retry.js';
import { rowsOf } from '../database/rows-of.js';
import {
  type AttemptRecord,
  type Backlog,
  type ClaimLimits,
  type Claimed,
  type DeliveredAttempt,
  type DeliveryRow,
  type QueueStatistics,
} from './webhook-delivery.rows.js';
import {
  claimStatement,
  recordAttempt,
  recordDelivered,
  recordDeliveredSkippingHeld,
} from './webhook-delivery.statements.js';

/**
 * The pending deliveries (counted up to $1) against those the last ANALYZE or VACUUM counted in the due
 * index, and whether this service's role may ANALYZE the table: it owns the table (as the role that runs
 * the migrations does) or the database, or has the MAINTAIN privilege (PostgreSQL 17 and later).
 */
const queueStatisticsSql = `
  SELECT (SELECT count(*)::int FROM (SELECT 1 FROM webhook_delivery WHERE state = 'pending'
                                      LIMIT $1::int) p) AS pending,
         greatest(c.reltuples, 0)::float8 AS counted,
         pg_has_role(t.relowner, 'USAGE') OR pg_has_role(d.datdba, 'USAGE')
           OR CASE WHEN current_setting('server_version_num')::int >= 170000
                   THEN has_table_privilege(t.oid, 'MAINTAIN') ELSE false END AS "mayAnalyze"
    FROM pg_class c, pg_class t, pg_database d
   WHERE c.oid = 'webhook_delivery_due_idx'::regclass AND t.oid = 'webhook_delivery'::regclass
     AND d.datname = current_database()`;

/**
 * Deliveries (webhook_delivery) with their attempts (webhook_attempt): the claim of due ones, each
 * attempt's outcome, the delivery log and redelivery, the backlog's size.
 */
@Injectable()
export class WebhookDeliveryRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** A subscription's deliveries from `offset` (or after a cursor), newest first, with attempts. */
  page(
    subscriptionId: string,
    window: { offset: number; limit: number; after?: Cursor },
  ): Promise<DeliveryRow[]> {
    // Rows after the cursor in the order `created_at DESC, id ASC`; without one, $4 is null.
    return this.dataSource.query<DeliveryRow[]>(
      `SELECT d.id, e.type, d.state, d.attempts, d.created_at, d.next_attempt_at, d.finished_at,
              to_char(d.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS cursor_at,
              coalesce((SELECT json_agg(json_build_object(
                 'attempt', a.attempt, 'startedAt', a.started_at, 'statusCode', a.status_code,
                 'durationMs', a.duration_ms, 'error', a.error, 'responseExcerpt', a.response_excerpt,
                 'responseContentType', a.response_content_type)
                 ORDER BY a.attempt)
                 FROM webhook_attempt a WHERE a.delivery_id = d.id), '[]') AS log
         FROM webhook_delivery d JOIN webhook_event e ON e.id = d.event_id
        WHERE d.subscription_id = $1
          AND ($4::timestamptz IS NULL OR d.created_at < $4::timestamptz
               OR (d.created_at = $4::timestamptz AND d.id > $5::uuid))
        ORDER BY d.created_at DESC, d.id LIMIT $2 OFFSET $3`,
      [
        subscriptionId,
        window.limit,
        window.offset,
        window.after?.at ?? null,
        window.after?.id ?? null,
      ],
    );
  }

  async count(subscriptionId: string): Promise<number> {
    const [row] = await this.dataSource.query<{ total: number }[]>(
      'SELECT count(*)::int AS total FROM webhook_delivery WHERE subscription_id = $1',
      [subscriptionId],
    );
    return row?.total ?? 0;
  }

  /** Pending again, due now, with no attempt counted; whether the subscription had it. */
  async redeliver(subscriptionId: string, deliveryId: string): Promise<boolean> {
    const changed = rowsOf(
      await this.dataSource.query(
        `UPDATE webhook_delivery
            SET state = 'pending', attempts = 0, next_attempt_at = now(), finished_at = NULL,
                lease_until = NULL, claim_id = NULL
          WHERE id = $1 AND subscription_id = $2 RETURNING id`,
        [deliveryId, subscriptionId],
      ),
    );
    return changed.length > 0;
  }

  /**
   * Claims due deliveries within the limits (webhook-claim.ts). Claims are one at a time across
   * instances (a transaction lock), so that the in-flight count each one reads cannot be out of date;
   * FOR UPDATE SKIP LOCKED keeps a delivery out of two claims all the same. On the pool's own client,
   * as the claim's `BEGIN` and lock go in one round trip, which a query runner cannot send.
   */
  async claimDue(limits: ClaimLimits): Promise<Claimed[]> {
    return this.inTransaction(
      `SELECT pg_advisory_xact_lock(hashtext('webhook-claim'))`,
      async (client) => {
        const { rows } = await client.query<Claimed>(claimStatement, [
          limits.limit,
          limits.leaseSeconds,
          limits.perSubscription,
          limits.perTenant,
          limits.probeAfterFailures,
        ]);
        return rows;
      },
    );
  }

  /**
   * Delivered attempts in one statement, which also close their subscriptions' circuits; the ids of the
   * deliveries recorded (a gone one is not). With `skipHeld`, a delivery that another transaction holds
   * (a redelivery, its subscription's delete) is skipped rather than waited for: record it on its own.
   */
  async recordDelivered(
    delivered: readonly DeliveredAttempt[],
    skipHeld = false,
  ): Promise<Set<string>> {
    const column = <T>(of: (attempt: AttemptRecord) => T) =>
      delivered.map(({ attempt }) => of(attempt));
    const rows = await retriedOnStalePlan(this.dataSource, 'webhooks delivered', () =>
      this.dataSource.query<{ id: string }[]>(
        skipHeld ? recordDeliveredSkippingHeld : recordDelivered,
        [
          column((attempt) => attempt.deliveryId),
          column((attempt) => attempt.attempt),
          column((attempt) => attempt.startedAt),
          column((attempt) => attempt.statusCode),
          column((attempt) => attempt.durationMs),
          column((attempt) => attempt.error),
          column((attempt) => attempt.responseExcerpt),
          column((attempt) => attempt.responseContentType),
          delivered.map(({ subscriptionId }) => subscriptionId),
          column((attempt) => attempt.claimId),
        ],
      ),
    );
    return new Set(rows.map((row) => row.id));
  }

  /** The attempt's row and the delivery's new state, if the delivery still exists. */
  async recordAttempt(manager: EntityManager, attempt: AttemptRecord): Promise<void> {
    await manager.query(`WITH ${recordAttempt} SELECT 1`, attemptValues(attempt));
  }

  /** The subscription's backlog waits until `until`; deliveries in flight finish. */
  async postpone(
    manager: EntityManager,
    subscriptionId: string,
    until: Date | null,
  ): Promise<void> {
    await manager.query(
      `UPDATE webhook_delivery SET next_attempt_at = $2
        WHERE subscription_id = $1 AND state = 'pending' AND next_attempt_at < $2
          AND (lease_until IS NULL OR lease_until <= now())`,
      [subscriptionId, until],
    );
  }

  /** The queue's size now and as the last statistics counted it (queueStatisticsSql). */
  async queueStatistics(upTo: number): Promise<QueueStatistics> {
    const [row] = await this.dataSource.query<QueueStatistics[]>(queueStatisticsSql, [upTo]);
    return row;
  }

  /**
   * ANALYZE of the queue by one instance at a time, if `outgrown` still holds for the numbers read once
   * this one has the lock (another may have just taken them); answers those numbers if it ran. Within the
   * statements' bounds: a lock autovacuum holds, or a sample read from a cold cache for longer, fails it.
   */
  async analyzeIf(
    outgrown: (now: QueueStatistics) => boolean,
    upTo: number,
  ): Promise<QueueStatistics | undefined> {
    return this.inTransaction(
      `SELECT pg_try_advisory_xact_lock(hashtext('webhook-queue-analyze')) AS mine`,
      async (client, locked) => {
        if (!(locked.rows[0] as { mine: boolean }).mine) return undefined;
        const { rows } = await client.query<QueueStatistics>(queueStatisticsSql, [upTo]);
        if (!outgrown(rows[0])) return undefined;
        await client.query('ANALYZE webhook_delivery');
        return rows[0];
      },
    );
  }

  /**
   * `work` in a transaction on the pool's own client, after `lock` (a statement taking a transaction
   * lock, whose result it gets): `BEGIN` and the lock go in one round trip, which a query runner cannot
   * send, and the lock lasts until COMMIT.
   */
  private async inTransaction<T>(
    lock: string,
    work: (client: PoolClient, locked: QueryResult) => Promise<T>,
  ): Promise<T> {
    const client = await poolOf(this.dataSource).connect();
    let failure: Error | undefined;
    try {
      // The simple protocol runs both in turn and answers both results.
      const [, locked] = (await client.query(`BEGIN; ${lock}`)) as unknown as [
        unknown,
        QueryResult,
      ];
      const answer = await work(client, locked);
      await client.query('COMMIT');
      return answer;
    } catch (error) {
      failure = error as Error;
      throw error;
    } finally {
      // A connection whose transaction failed is closed, not handed back: that rolls it back.
      client.release(failure);
    }
  }

  /** Pending deliveries, the age of the oldest, and paused subscriptions, in one query. */
  async backlog(): Promise<Backlog> {
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

/** $1 to $11 of recordAttempt, in its order. */
function attemptValues(attempt: AttemptRecord): unknown[] {
  return [
    attempt.deliveryId,
    attempt.attempt,
    attempt.startedAt,
    attempt.statusCode,
    attempt.durationMs,
    attempt.error,
    attempt.responseExcerpt,
    attempt.responseContentType,
    attempt.finalState,
    attempt.waitMs,
    attempt.claimId,
  ];
}
