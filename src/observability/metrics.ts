import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Seconds: from a loopback read (a few hundred µs) to a slow signature or webhook (10 s timeout). */
const durationBuckets = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 15,
];

export type TokenOutcome = 'verified' | 'remembered' | 'refused';
export type TokenRefusal = 'missing' | 'expired' | 'invalid' | 'issuer_unavailable';

/**
 * The service's Prometheus metrics, one registry per running service (tests run several in one
 * process). Names follow Prometheus conventions: base units, `_total` counters; labels are bounded
 * (route templates, never raw paths, ids or tenants).
 */
export class Metrics {
  readonly registry = new Registry();

  readonly httpRequestDuration = new Histogram({
    name: 'http_server_request_duration_seconds',
    help: 'HTTP requests by method, route template and status class, with their duration',
    labelNames: ['method', 'route', 'status_class'] as const,
    buckets: durationBuckets,
    registers: [this.registry],
  });

  readonly tokenChecks = new Counter({
    name: 'auth_token_checks_total',
    help: 'Bearer token checks: verified, remembered (verified moments ago) or refused (with a reason)',
    labelNames: ['outcome', 'reason'] as const,
    registers: [this.registry],
  });

  readonly jwksFetches = new Counter({
    name: 'auth_jwks_fetches_total',
    help: "Fetches of the issuer's signing keys (JWKS), by outcome",
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly credentialOperations = new Histogram({
    name: 'credential_operation_duration_seconds',
    help: 'Credentials issued and verified (and presentations verified), by cryptosuite and outcome',
    labelNames: ['operation', 'cryptosuite', 'outcome'] as const,
    buckets: durationBuckets,
    registers: [this.registry],
  });

  readonly credentialStatusChanges = new Counter({
    name: 'credential_status_changes_total',
    help: 'Credential status changes applied, by change: revoked, suspended, unsuspended',
    labelNames: ['change'] as const,
    registers: [this.registry],
  });

  readonly webhookEvents = new Counter({
    name: 'webhook_events_total',
    help: 'Events written to the webhook outbox, by type (each then goes to every matching subscription)',
    labelNames: ['type'] as const,
    registers: [this.registry],
  });

  readonly webhookAttempts = new Counter({
    name: 'webhook_delivery_attempts_total',
    help: 'Webhook delivery attempts by outcome: delivered, retry (failed, will retry), failed (gave up), disabled',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly rateLimited = new Counter({
    name: 'http_rate_limited_total',
    help: 'Requests refused with 429, by what they were counted against (caller or ip)',
    labelNames: ['key'] as const,
    registers: [this.registry],
  });

  readonly requestsShed = new Counter({
    name: 'agent_requests_shed_total',
    help: 'Requests refused before any work, by route class (token, wallet, api) and reason: in_flight (503, the class at its bound) or rate_limited (429)',
    labelNames: ['class', 'reason'] as const,
    registers: [this.registry],
  });

  readonly requestsInFlight = new Gauge({
    name: 'agent_requests_in_flight',
    help: 'Requests being served now, by route class (token, wallet, api); probes are not counted',
    labelNames: ['class'] as const,
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  /** A gauge whose value is read when Prometheus scrapes (pool sizes, queue depth). */
  gauge(name: string, help: string, read: () => number | Promise<number>): void {
    new Gauge({
      name,
      help,
      registers: [this.registry],
      async collect() {
        this.set(await read());
      },
    });
  }
}
