import { type DataSource } from 'typeorm';
import { poolOf } from '../database/prepared-statement.js';
import { pauseAfterFailures } from './webhook-attempts.js';

/** A delivery this instance claimed, with what sending it needs. */
export interface Claimed {
  id: string;
  attempts: number;
  subscription_id: string;
  url: string;
  secret_sealed: Buffer;
  secret_master_key_id: string | null;
  previous_secret_sealed: Buffer | null;
  previous_secret_master_key_id: string | null;
  previous_secret_until: Date | null;
  body: string;
}

/**
 * In flight at once across all instances (docs/webhooks.md): per subscription (one while its circuit
 * probes), as many as an instance sent before these caps, and per tenant (all-tenant subscriptions count
 * as one more tenant). An instance sends at most 32 at once, so a tenant whose receivers all hang leaves
 * the others room on every instance.
 */
export const perSubscription = 16;
export const perTenant = 24;

/**
 * Claims at most `limit` due deliveries for `leaseSeconds`, oldest first, within the caps. Claims are
 * one at a time across instances (a transaction lock), so that the in-flight count each one reads
 * cannot be out of date; FOR UPDATE SKIP LOCKED keeps a delivery out of two claims all the same. The
 * statement is prepared on its connection: it runs several times a second, and its plan is kept.
 */
export async function claimDue(
  dataSource: DataSource,
  limit: number,
  leaseSeconds: number,
): Promise<Claimed[]> {
  const client = await poolOf(dataSource).connect();
  let failure: Error | undefined;
  try {
    // Both in one round trip (the simple protocol runs them in turn); the lock lasts until COMMIT.
    await client.query(`BEGIN; SELECT pg_advisory_xact_lock(hashtext('webhook-claim'))`);
    const { rows } = await client.query<Claimed>({
      name: 'webhook-claim',
      text: claimStatement,
      values: [limit, leaseSeconds, perSubscription, perTenant, pauseAfterFailures],
    });
    await client.query('COMMIT');
    return rows;
  } catch (error) {
    failure = error as Error;
    throw error;
  } finally {
    // A connection whose transaction failed is closed, not handed back: that rolls it back.
    client.release(failure);
  }
}

/**
 * In flight: the leased deliveries, counted per subscription and per owner. Candidates: due deliveries
 * of enabled subscriptions that are not paused and below both caps, in due order (the due index), the
 * first `limit × perSubscription` of them; of those, each subscription's and then each owner's oldest up
 * to its room, and of those the oldest `limit`. The scan steps over the due backlog of subscriptions at
 * their cap (a failing one's is moved out of the due range when it pauses).
 */
const claimStatement = `
  WITH leased AS (
    SELECT d.subscription_id, coalesce(s.tenant_id, '') AS owner, count(*)::int AS n
      FROM webhook_delivery d JOIN webhook_subscription s ON s.id = d.subscription_id
     WHERE d.lease_until > now() AND d.state = 'pending'
     GROUP BY d.subscription_id, s.tenant_id),
  owners AS (SELECT owner, sum(n)::int AS n FROM leased GROUP BY owner),
  candidates AS (
    SELECT w.id, w.subscription_id, w.next_attempt_at, coalesce(s.tenant_id, '') AS owner,
           CASE WHEN s.consecutive_failures >= $5::int THEN 1 ELSE $3::int END - coalesce(l.n, 0)
             AS subscription_room,
           $4::int - coalesce(o.n, 0) AS owner_room
      FROM webhook_delivery w
      JOIN webhook_subscription s ON s.id = w.subscription_id
      LEFT JOIN leased l ON l.subscription_id = w.subscription_id
      LEFT JOIN owners o ON o.owner = coalesce(s.tenant_id, '')
     WHERE w.state = 'pending' AND w.next_attempt_at <= now()
       AND s.enabled AND (s.backoff_until IS NULL OR s.backoff_until <= now())
       AND coalesce(l.n, 0) < CASE WHEN s.consecutive_failures >= $5::int THEN 1 ELSE $3::int END
       AND coalesce(o.n, 0) < $4::int
     ORDER BY w.next_attempt_at LIMIT $1::int * $3::int),
  per_subscription AS (
    SELECT *, row_number() OVER (PARTITION BY subscription_id ORDER BY next_attempt_at, id) AS rank
      FROM candidates),
  per_owner AS (
    SELECT id, next_attempt_at, owner_room,
           row_number() OVER (PARTITION BY owner ORDER BY next_attempt_at, id) AS rank
      FROM per_subscription WHERE rank <= subscription_room),
  picked AS (
    SELECT id FROM per_owner WHERE rank <= owner_room ORDER BY next_attempt_at LIMIT $1::int),
  claimed AS (
    UPDATE webhook_delivery d
       SET attempts = d.attempts + 1,
           lease_until = now() + make_interval(secs => $2::int),
           next_attempt_at = now() + make_interval(secs => $2::int)
     WHERE d.id IN (
       SELECT w.id FROM webhook_delivery w
        WHERE w.id IN (SELECT id FROM picked) AND w.state = 'pending' AND w.next_attempt_at <= now()
          FOR UPDATE OF w SKIP LOCKED)
    RETURNING d.id, d.attempts, d.subscription_id, d.event_id)
  SELECT c.id, c.attempts, c.subscription_id, s.url, s.secret_sealed, s.secret_master_key_id,
         s.previous_secret_sealed, s.previous_secret_master_key_id, s.previous_secret_until, e.body
    FROM claimed c
    JOIN webhook_subscription s ON s.id = c.subscription_id
    JOIN webhook_event e ON e.id = c.event_id`;
