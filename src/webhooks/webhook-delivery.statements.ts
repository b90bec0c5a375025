/**
 * The statements of the delivery queue (WebhookDeliveryRepository): an attempt's record, delivered
 * ones' with their circuits closed, and the claim of due deliveries.
 */

/**
 * If the delivery still exists, the attempt's row ($1 to $10), and its new state while the claim that
 * sent the attempt ($11) still holds it: after a redelivery, or a lapsed lease claimed again, the
 * attempt is only logged.
 */
export const recordAttempt = `
  held AS (
    SELECT id, claim_id FROM webhook_delivery WHERE id = $1::uuid FOR NO KEY UPDATE),
  delivery AS (
    UPDATE webhook_delivery
       SET state = coalesce($9::varchar, state), lease_until = NULL, claim_id = NULL,
           finished_at = CASE WHEN $9::varchar IS NULL THEN NULL ELSE now() END,
           next_attempt_at = now() + make_interval(secs => $10::double precision / 1000)
     WHERE id IN (SELECT id FROM held WHERE claim_id = $11::uuid)),
  attempt AS (
    INSERT INTO webhook_attempt (delivery_id, attempt, started_at, status_code, duration_ms, error,
                                 response_excerpt, response_content_type)
    SELECT id, $2::int, $3::timestamptz, $4::int, $5::int, $6::varchar, $7::varchar, $8::varchar
      FROM held)`;

/**
 * Delivered attempts ($1 to $8 are recordAttempt's columns as arrays, $9 their subscriptions, $10 their
 * claims): the deliveries delivered (those their claims still hold, as in recordAttempt), their attempts'
 * rows, and their subscriptions' circuits closed unless another transaction holds a subscription (a
 * failure being recorded, a change, a delete): never waiting for one keeps this free of deadlocks.
 * Answers the deliveries recorded; a gone one is not.
 */
function deliveredStatement(delivery: 'wait for a held one' | 'skip a held one'): string {
  const skip = delivery === 'skip a held one' ? ' SKIP LOCKED' : '';
  return `
  WITH given AS (
    SELECT * FROM unnest($1::uuid[], $2::int[], $3::timestamptz[], $4::int[], $5::int[],
                         $6::varchar[], $7::varchar[], $8::varchar[], $9::uuid[], $10::uuid[])
      AS g(delivery_id, attempt, started_at, status_code, duration_ms, error, response_excerpt,
           response_content_type, subscription_id, claim_id)),
  held AS (
    SELECT id, claim_id FROM webhook_delivery
     WHERE id IN (SELECT delivery_id FROM given) FOR NO KEY UPDATE${skip}),
  delivery AS (
    UPDATE webhook_delivery
       SET state = 'delivered', lease_until = NULL, claim_id = NULL, finished_at = now(),
           next_attempt_at = now()
     WHERE id IN (SELECT h.id FROM held h JOIN given g
                    ON g.delivery_id = h.id AND g.claim_id = h.claim_id)),
  attempt AS (
    INSERT INTO webhook_attempt (delivery_id, attempt, started_at, status_code, duration_ms, error,
                                 response_excerpt, response_content_type)
    SELECT g.delivery_id, g.attempt, g.started_at, g.status_code, g.duration_ms, g.error,
           g.response_excerpt, g.response_content_type
      FROM given g JOIN held d ON d.id = g.delivery_id),
  closed AS (
    UPDATE webhook_subscription SET consecutive_failures = 0, backoff_ms = 0, backoff_until = NULL
     WHERE id IN (SELECT id FROM webhook_subscription
                   WHERE id IN (SELECT subscription_id FROM given)
                     AND (consecutive_failures > 0 OR backoff_ms > 0)
                     FOR NO KEY UPDATE SKIP LOCKED))
  SELECT id FROM held`;
}

/** Delivered attempts, each delivery waited for while another transaction holds it. */
export const recordDelivered = deliveredStatement('wait for a held one');

/**
 * Delivered attempts together, a delivery another transaction holds skipped: waiting for one while
 * holding others could deadlock with a subscription's delete, which takes its deliveries in its order.
 */
export const recordDeliveredSkippingHeld = deliveredStatement('skip a held one');

/**
 * In flight: the leased deliveries, counted per subscription and per owner. Pending: the subscriptions
 * with pending deliveries, one index probe each (a loose index scan), so that a long backlog is neither
 * walked nor lets one subscription fill what the claim looks at. Candidates: of each enabled one that is
 * not paused and below both caps, its oldest due deliveries up to its room; of those, each owner's oldest
 * up to its room, and of those the oldest `limit`, locked unless another claim holds them. A plan made
 * while the queue was empty (a connection keeps it) joins in nested loops: the picked are materialized
 * and the locked are a statement of their own, so that no plan computes them again for each due row.
 */
export const claimStatement = `
  WITH RECURSIVE leased AS (
    SELECT d.subscription_id, coalesce(s.tenant_id, '') AS owner, count(*)::int AS n
      FROM webhook_delivery d JOIN webhook_subscription s ON s.id = d.subscription_id
     WHERE d.lease_until > now() AND d.state = 'pending'
     GROUP BY d.subscription_id, s.tenant_id),
  owners AS (SELECT owner, sum(n)::int AS n FROM leased GROUP BY owner),
  pending (subscription_id) AS (
    (SELECT subscription_id FROM webhook_delivery WHERE state = 'pending'
      ORDER BY subscription_id LIMIT 1)
    UNION ALL
    SELECT (SELECT d.subscription_id FROM webhook_delivery d
             WHERE d.state = 'pending' AND d.subscription_id > p.subscription_id
             ORDER BY d.subscription_id LIMIT 1)
      FROM pending p WHERE p.subscription_id IS NOT NULL),
  eligible AS (
    SELECT s.id, coalesce(s.tenant_id, '') AS owner,
           greatest(0, least(
             CASE WHEN s.consecutive_failures >= $5::int THEN 1 ELSE $3::int END - coalesce(l.n, 0),
             $4::int - coalesce(o.n, 0), $1::int)) AS room,
           $4::int - coalesce(o.n, 0) AS owner_room
      FROM pending p
      JOIN webhook_subscription s ON s.id = p.subscription_id
      LEFT JOIN leased l ON l.subscription_id = s.id
      LEFT JOIN owners o ON o.owner = coalesce(s.tenant_id, '')
     WHERE s.enabled AND (s.backoff_until IS NULL OR s.backoff_until <= now())),
  candidates AS (
    SELECT w.id, w.next_attempt_at, e.owner, e.owner_room
      FROM eligible e
     CROSS JOIN LATERAL (
       SELECT d.id, d.next_attempt_at FROM webhook_delivery d
        WHERE d.subscription_id = e.id AND d.state = 'pending' AND d.next_attempt_at <= now()
        ORDER BY d.next_attempt_at LIMIT e.room) w
     WHERE e.room > 0),
  per_owner AS (
    SELECT id, next_attempt_at, owner_room,
           row_number() OVER (PARTITION BY owner ORDER BY next_attempt_at, id) AS rank
      FROM candidates),
  picked AS MATERIALIZED (
    SELECT id FROM per_owner WHERE rank <= owner_room ORDER BY next_attempt_at LIMIT $1::int),
  locked AS MATERIALIZED (
    SELECT w.id FROM webhook_delivery w
     WHERE w.id IN (SELECT id FROM picked) AND w.state = 'pending' AND w.next_attempt_at <= now()
       FOR UPDATE OF w SKIP LOCKED),
  claimed AS (
    UPDATE webhook_delivery d
       SET attempts = d.attempts + 1, claim_id = gen_random_uuid(),
           lease_until = now() + make_interval(secs => $2::int),
           next_attempt_at = now() + make_interval(secs => $2::int)
     WHERE d.id IN (SELECT id FROM locked)
    RETURNING d.id, d.attempts, d.subscription_id, d.event_id, d.claim_id)
  SELECT c.id, c.attempts, c.subscription_id, c.claim_id, s.url, s.secret_sealed, s.secret_master_key_id,
         s.previous_secret_sealed, s.previous_secret_master_key_id, s.previous_secret_until, e.body
    FROM claimed c
    JOIN webhook_subscription s ON s.id = c.subscription_id
    JOIN webhook_event e ON e.id = c.event_id`;
