import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { type DataSource } from 'typeorm';
import { AuditLog } from '../audit/audit-log.js';
import { type Actor } from '../auth/caller.js';
import { targetProblem } from '../common/outbound.js';
import { DomainException } from '../common/problem/domain.exception.js';
import { type FieldError } from '../common/problem/problem.js';
import { Settings } from '../config/settings.js';
import { violates } from '../database/constraint-violation.js';
import { keepIdempotentAnswer } from '../idempotency/idempotent-answer.js';
import { KeyVault } from '../secrets/key-vault.js';
import { tenantNotFound } from '../tenancy/tenant.errors.js';
import { newSecret } from './signature.js';
import { WebhookSubscriptionRepository } from './webhook-subscription.repository.js';
import {
  viewOf,
  webhookNotFound,
  type NewSubscription,
  type SubscriptionChanges,
  type SubscriptionView,
} from './webhook-subscription.view.js';
import { WebhooksService } from './webhooks.service.js';
import { webhookSecretPurpose } from './webhook-subscription.sealed-columns.js';

/** Making, changing and deleting subscriptions, each in the audit log with who did it. */
@Injectable()
export class WebhookChangesService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly settings: Settings,
    @Inject(KeyVault) private readonly vault: KeyVault,
    private readonly audit: AuditLog,
    private readonly webhooks: WebhooksService,
    private readonly subscriptions: WebhookSubscriptionRepository,
  ) {}

  /** Checks the target now (and again at each delivery); the secret is in the answer only. */
  async create(
    tenantId: string | null,
    input: NewSubscription,
    actor: Actor,
  ): Promise<SubscriptionView & { secret: string }> {
    await this.checkTarget(input.url);
    await this.webhooks.requireTenant(tenantId);
    const id = randomUUID();
    const secret = newSecret();
    const created = await this.dataSource
      .transaction(async (manager) => {
        const entity = await this.subscriptions.insert(manager, {
          id,
          tenantId,
          url: input.url,
          events: [...new Set(input.events ?? [])],
          description: input.description ?? null,
          secretSealed: this.vault.seal(id, Buffer.from(secret, 'utf8'), webhookSecretPurpose),
          secretMasterKeyId: this.vault.masterKeyId,
        });
        // The answer shows the secret once; a replay shows it again, sealed at rest meanwhile.
        const answer = { ...viewOf(entity), secret };
        await keepIdempotentAnswer(manager, answer);
        return answer;
      })
      .catch((error: unknown) => {
        // The tenant was deleted since it was checked.
        if (violates(error, 'foreign-key')) {
          throw tenantNotFound(tenantId ?? '');
        }
        throw error;
      });
    this.audit.record('webhook.create', actor, tenantId, {
      webhookId: id,
      urlOrigin: new URL(input.url).origin,
    });
    return created;
  }

  /**
   * Changes what is given, in one statement (a concurrent change or rotation is never undone); a changed
   * URL is checked like a new one and tried at once, and enabling a subscription again clears its
   * failure count and pause.
   */
  async update(
    owner: string | null,
    id: string,
    changes: SubscriptionChanges,
    actor: Actor,
  ): Promise<SubscriptionView> {
    const subscriptionId = (await this.webhooks.find(owner, id)).id;
    if (Object.values(changes).every((value) => value === undefined)) {
      throw new DomainException(
        'NOTHING_TO_UPDATE',
        'Give a url, events, description or enabled.',
        [{ field: 'url', message: 'or events, description or enabled is required' }],
      );
    }
    if (changes.url !== undefined) await this.checkTarget(changes.url);
    const updated = await this.subscriptions.update(owner, subscriptionId, {
      url: changes.url ?? null,
      events: changes.events === undefined ? null : [...new Set(changes.events)],
      description: changes.description === undefined ? null : { value: changes.description },
      enabled: changes.enabled ?? null,
    });
    if (updated === undefined) throw webhookNotFound(owner, id);
    // A changed URL redirects the tenant's events: its origin is named (a path may hold a secret).
    this.audit.record('webhook.update', actor, owner, {
      webhookId: id,
      fields: Object.keys(changes).filter(
        (key) => changes[key as keyof SubscriptionChanges] !== undefined,
      ),
      urlOrigin: changes.url === undefined ? undefined : new URL(changes.url).origin,
    });
    return viewOf(updated);
  }

  async delete(owner: string | null, id: string, actor: Actor): Promise<void> {
    const deleted = await this.subscriptions.delete(owner, await this.webhooks.idOf(owner, id));
    if (!deleted) throw webhookNotFound(owner, id);
    this.audit.record('webhook.delete', actor, owner, { webhookId: id });
  }

  private async checkTarget(url: string): Promise<void> {
    const problem = await targetProblem(url, {
      allowPrivate: this.settings.webhookAllowPrivateTargets,
    });
    if (problem !== undefined) {
      const error: FieldError = { field: 'url', message: `is refused: ${problem}` };
      throw new DomainException('VALIDATION_FAILED', `url ${error.message}`, [error]);
    }
  }
}
