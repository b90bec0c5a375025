/** A delivery this instance claimed, with what sending it needs. */
export interface Claimed {
  id: string;
  attempts: number;
  subscription_id: string;
  /** This claim's id: the attempt's answer decides the delivery only while the claim holds it. */
  claim_id: string;
  url: string;
  secret_sealed: Buffer;
  secret_master_key_id: string | null;
  previous_secret_sealed: Buffer | null;
  previous_secret_master_key_id: string | null;
  previous_secret_until: Date | null;
  body: string;
}

/** What one claim may take (webhook-claim.ts). */
export interface ClaimLimits {
  /** At most this many deliveries. */
  limit: number;
  /** Each one this instance's for this long. */
  leaseSeconds: number;
  /** In flight at once per subscription, and per tenant (all-tenant subscriptions as one more). */
  perSubscription: number;
  perTenant: number;
  /** A subscription with this many failures in a row probes: one delivery in flight. */
  probeAfterFailures: number;
}

/** One attempt's row and what it means for its delivery. */
export interface AttemptRecord {
  deliveryId: string;
  /** The claim that sent it (Claimed.claim_id). */
  claimId: string;
  attempt: number;
  startedAt: Date;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  responseExcerpt: string | null;
  responseContentType: string | null;
  /** `delivered` or `failed`; null: pending, tried again in `waitMs`. */
  finalState: 'delivered' | 'failed' | null;
  waitMs: number;
}

/** A delivered attempt with its delivery's subscription, whose circuit it closes. */
export interface DeliveredAttempt {
  attempt: AttemptRecord;
  subscriptionId: string;
}

/** A delivery of the log with its attempts. */
export interface DeliveryRow {
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

/** The delivery queue as the metrics show it. */
export interface Backlog {
  depth: number;
  oldestSeconds: number;
  paused: number;
}

/** The queue's size now and as the planner's statistics have it (WebhookQueueStatistics). */
export interface QueueStatistics {
  pending: number;
  counted: number;
  mayAnalyze: boolean;
}
