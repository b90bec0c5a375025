import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { type DataSource } from 'typeorm';
import { AuditLog } from '../audit/audit-log.js';
import { CLOCK, type Clock } from '../common/clock.js';
import { type Actor } from '../auth/caller.js';
import { keepIdempotentAnswer } from '../idempotency/idempotent-answer.js';
import { KeyVault } from '../secrets/key-vault.js';
import { newSecret } from './signature.js';
import { WebhookSubscriptionRepository } from './webhook-subscription.repository.js';
import { webhookNotFound } from './webhook-subscription.view.js';
import { WebhooksService } from './webhooks.service.js';
import { webhookSecretPurpose } from './webhook-subscription.sealed-columns.js';

/** How long the secret before a rotation still signs. */
const secretGraceMs = 24 * 60 * 60 * 1000;

/** A subscription's signing secret: rotation with a day's overlap (Standard Webhooks). */
@Injectable()
export class WebhookSecretsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(KeyVault) private readonly vault: KeyVault,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly audit: AuditLog,
    private readonly webhooks: WebhooksService,
    private readonly subscriptions: WebhookSubscriptionRepository,
  ) {}

  /**
   * A new secret signs from now on; the old one signs too (a second signature) for a day, so that
   * receivers can switch without losing a delivery. One statement: of two rotations at once, the
   * second moves the first one's secret to the previous one.
   */
  async rotateSecret(
    owner: string | null,
    id: string,
    actor: Actor,
  ): Promise<{ secret: string; previousSecretExpiresAt: string }> {
    const subscriptionId = await this.webhooks.idOf(owner, id);
    const secret = newSecret();
    const until = new Date(this.clock() + secretGraceMs);
    const answer = { secret, previousSecretExpiresAt: until.toISOString() };
    // The answer is kept with the rotation, so a retry after an ambiguous 503 replays it (docs/api.md).
    const rotated = await this.dataSource.transaction(async (manager) => {
      const done = await this.subscriptions.rotateSecret(manager, owner, subscriptionId, {
        sealed: this.vault.seal(subscriptionId, Buffer.from(secret, 'utf8'), webhookSecretPurpose),
        masterKeyId: this.vault.masterKeyId,
        previousUntil: until,
      });
      if (done) await keepIdempotentAnswer(manager, answer);
      return done;
    });
    if (!rotated) throw webhookNotFound(owner, id);
    this.audit.record('webhook.rotate-secret', actor, owner, { webhookId: id });
    return answer;
  }
}
