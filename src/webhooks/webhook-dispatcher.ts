import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { CLOCK, type Clock } from '../common/clock.js';
import { Settings } from '../config/settings.js';
import { guardedRequest, OutboundError, type OutboundResponse } from '../common/outbound.js';
import { KeyVault, UnknownMasterKeyError } from '../secrets/key-vault.js';
import { signatureOf } from './signature.js';
import { excerptBytes, WebhookAttempts } from './webhook-attempts.js';
import { claimLimits } from './webhook-claim.js';
import { type Claimed } from './webhook-delivery.rows.js';
import { WebhookDeliveryRepository } from './webhook-delivery.repository.js';
import { webhookSecretPurpose } from './webhook-subscription.sealed-columns.js';

/** How often an idle instance looks for due deliveries, and how many it sends at once. */
const pollIntervalMs = 250;
const maxInFlight = 32;
/** Standard Webhooks receivers answer at once; a receiver that cannot connect fails sooner. */
const connectTimeoutMs = 3_000;
const requestTimeoutMs = 10_000;
/** A claimed delivery is this instance's for twice the request timeout; then another may take it. */
const leaseSeconds = 20;

/**
 * Sends due deliveries, in every instance: each claims a batch with FOR UPDATE SKIP LOCKED and a lease,
 * so one delivery is sent by one instance at a time, and one that dies mid-delivery loses nothing; the
 * claim keeps each subscription and tenant within its share (webhook-claim.ts).
 */
@Injectable()
export class WebhookDispatcher implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Webhooks');
  private readonly inFlight = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private ticking = false;
  private woken = false;

  constructor(
    private readonly deliveries: WebhookDeliveryRepository,
    private readonly settings: Settings,
    @Inject(KeyVault) private readonly vault: KeyVault,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly attempts: WebhookAttempts,
  ) {}

  onApplicationBootstrap(): void {
    this.schedule(0);
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    // Deliveries under way finish (each within its timeout); what is not claimed waits for the next start.
    await Promise.allSettled([...this.inFlight]);
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.tick(), delayMs);
  }

  /** A delivery finished: claim more now rather than at the next poll, or right after the claim under way. */
  private wake(): void {
    if (this.stopped) return;
    if (this.ticking) {
      this.woken = true;
      return;
    }
    clearTimeout(this.timer);
    this.schedule(0);
  }

  private async tick(): Promise<void> {
    this.ticking = true;
    this.woken = false;
    let next = pollIntervalMs;
    try {
      const room = maxInFlight - this.inFlight.size;
      if (room > 0) {
        const claimed = await this.deliveries.claimDue(claimLimits(room, leaseSeconds));
        for (const delivery of claimed) this.track(this.deliver(delivery));
        // Room left, or freed while claiming (the caps may have held back what was due): claim again.
        if (claimed.length === room || this.woken) next = 0;
      }
    } catch (error) {
      this.logger.warn({ event: 'webhook.claim-failed', error: (error as Error).message });
      next = pollIntervalMs * 4;
    }
    this.ticking = false;
    this.schedule(next);
  }

  private track(work: Promise<void>): void {
    const tracked = work.catch((error: unknown) => {
      this.logger.error({ event: 'webhook.dispatch-failed', error: (error as Error).message });
    });
    this.inFlight.add(tracked);
    void tracked.finally(() => {
      this.inFlight.delete(tracked);
      this.wake();
    });
  }

  private async deliver(delivery: Claimed): Promise<void> {
    const timestamp = Math.floor(this.clock() / 1000);
    let signature: string;
    try {
      signature = this.sign(delivery, timestamp);
    } catch (caught) {
      // Recorded as a failed attempt (retried as usual), so the subscriber's log shows why.
      await this.attempts.record(
        delivery,
        new Date(),
        undefined,
        this.secretProblem(delivery, caught),
      );
      return;
    }
    const started = new Date();
    let response: OutboundResponse | undefined;
    let error: string | undefined;
    try {
      response = await guardedRequest(
        delivery.url,
        {
          allowPrivate: this.settings.webhookAllowPrivateTargets,
          ca: this.settings.OUTBOUND_CA_FILE,
        },
        {
          method: 'POST',
          body: delivery.body,
          headers: {
            'content-type': 'application/json',
            'user-agent': 'agent-service-webhooks',
            'webhook-id': delivery.id,
            'webhook-timestamp': String(timestamp),
            'webhook-signature': signature,
          },
          connectTimeoutMs,
          timeoutMs: requestTimeoutMs,
          maxBytes: excerptBytes,
          truncate: true,
        },
      );
    } catch (caught) {
      if (!(caught instanceof OutboundError)) throw caught;
      error = attemptError(caught);
    }
    await this.attempts.record(delivery, started, response, error);
  }

  /** One signature per live secret, each opened under the master key recorded with it. */
  private sign(delivery: Claimed, timestamp: number): string {
    const boxes: [Buffer, string | null][] = [
      [delivery.secret_sealed, delivery.secret_master_key_id],
    ];
    if (
      delivery.previous_secret_sealed !== null &&
      delivery.previous_secret_until!.getTime() > this.clock()
    ) {
      boxes.push([delivery.previous_secret_sealed, delivery.previous_secret_master_key_id]);
    }
    return boxes
      .map(([sealed, keyId]) => {
        const secret = this.vault.open(
          delivery.subscription_id,
          sealed,
          webhookSecretPurpose,
          // Null: sealed before key ids were recorded, under the key that is still current.
          keyId ?? this.vault.masterKeyId,
        );
        try {
          return signatureOf(secret.toString('utf8'), delivery.id, timestamp, delivery.body);
        } finally {
          secret.fill(0);
        }
      })
      .join(' ');
  }

  /** Logged for the operator with the key id; the attempt's error (which tenants read) names no key. */
  private secretProblem(delivery: Claimed, caught: unknown): string {
    const unknownKey = caught instanceof UnknownMasterKeyError;
    this.logger.error({
      msg: unknownKey
        ? `Webhook subscription ${delivery.subscription_id}'s secret is sealed under master key ${caught.masterKeyId}, which this instance does not have: add it to AGENT_PREVIOUS_MASTER_KEYS`
        : `Webhook subscription ${delivery.subscription_id}'s secret could not be opened: ${(caught as Error).message}`,
      event: unknownKey ? 'master-key.unknown' : 'webhook.secret-unreadable',
      subscriptionId: delivery.subscription_id,
      deliveryId: delivery.id,
      masterKeyId: unknownKey ? caught.masterKeyId : undefined,
    });
    return unknownKey
      ? 'not sent: the signing secret is sealed under a master key this service is not configured with'
      : 'not sent: the signing secret could not be opened';
  }
}

/**
 * The attempt's error as the subscriber reads it: what the guard refused, or only that the connection
 * failed or timed out, not why (refused, reset, unreachable) nor which phase (docs/webhooks.md).
 */
function attemptError(error: OutboundError): string {
  if (error.failure === 'connection') return 'connection failed';
  if (error.failure === 'timeout') return 'timed out';
  return error.message;
}
