import { pauseAfterFailures } from './webhook-attempts.js';
import { type ClaimLimits } from './webhook-delivery.rows.js';

/**
 * In flight at once across all instances (docs/webhooks.md): per subscription (one while its circuit
 * probes), as many as an instance sent before these caps, and per tenant (all-tenant subscriptions count
 * as one more tenant). An instance sends at most 32 at once, so a tenant whose receivers all hang leaves
 * the others room on every instance.
 */
export const perSubscription = 16;
export const perTenant = 24;

/** At most `limit` due deliveries, oldest first, within the caps, each leased for `leaseSeconds`. */
export function claimLimits(limit: number, leaseSeconds: number): ClaimLimits {
  return {
    limit,
    leaseSeconds,
    perSubscription,
    perTenant,
    probeAfterFailures: pauseAfterFailures,
  };
}
