import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { type DataSource } from 'typeorm';
import { APP_CONFIG } from '../config/config.token.js';
import { type AppConfig } from '../config/app-config.js';
import { targetProblem } from '../common/outbound.js';
import { DomainException } from '../common/problem/domain.exception.js';
import { type FieldError } from '../common/problem/problem.js';
import { KeyVault } from '../did/key-vault.js';
import { newSecret } from './signature.js';
import { webhookEventTypes } from './webhook-outbox.js';
import { WebhookSubscriptionEntity } from './webhook-subscription.entity.js';

export interface NewSubscription {
  url: string;
  events?: string[];
  description?: string;
}

/** A subscription as callers see it: never its secret, except once, when it is made. */
export interface SubscriptionView {
  id: string;
  tenantId: string | null;
  url: string;
  events: string[];
  description: string | null;
  enabled: boolean;
  disabledReason: string | null;
  createdAt: string;
  updatedAt: string;
}

/** Subscriptions of a tenant, or of all tenants when the tenant is null (administrators). */
@Injectable()
export class WebhooksService {
  private readonly logger = new Logger('Webhooks');

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(KeyVault) private readonly vault: KeyVault,
  ) {}

  /** Checks the target now (and again at each delivery); the secret is in the answer only. */
  async create(
    tenantId: string | null,
    input: NewSubscription,
  ): Promise<SubscriptionView & { secret: string }> {
    const errors: FieldError[] = [];
    const problem = await targetProblem(input.url, {
      allowPrivate: this.config.webhooks.allowPrivateTargets,
    });
    if (problem !== undefined) errors.push({ field: 'url', message: `is refused: ${problem}` });
    const unknown = (input.events ?? []).filter(
      (type) => !(webhookEventTypes as readonly string[]).includes(type),
    );
    if (unknown.length > 0) {
      errors.push({
        field: 'events',
        message: `names unknown event types ${unknown.join(', ')} (known: ${webhookEventTypes.join(', ')})`,
      });
    }
    if (errors.length > 0) {
      throw new DomainException(
        'VALIDATION_FAILED',
        errors.map((error) => `${error.field} ${error.message}`).join('; '),
        errors,
      );
    }
    const id = randomUUID();
    const secret = newSecret();
    const entity = await this.dataSource.getRepository(WebhookSubscriptionEntity).save({
      id,
      tenantId,
      url: input.url,
      events: [...new Set(input.events ?? [])],
      description: input.description ?? null,
      secretSealed: this.vault.seal(id, Buffer.from(secret, 'utf8'), 'webhook-secret'),
    });
    this.logger.log({ msg: `webhook.created ${id}`, event: 'webhook.created', tenantId, id });
    return { ...viewOf(entity), secret };
  }
}

export function viewOf(entity: WebhookSubscriptionEntity): SubscriptionView {
  return {
    id: entity.id,
    tenantId: entity.tenantId,
    url: entity.url,
    events: entity.events,
    description: entity.description,
    enabled: entity.enabled,
    disabledReason: entity.disabledReason,
    createdAt: entity.createdAt.toISOString(),
    updatedAt: entity.updatedAt.toISOString(),
  };
}
