import { AuditLog } from '../audit/audit-log.js';
import { type Actor } from '../auth/caller.js';
import { isUUID } from 'class-validator';
import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import { IsNull, type DataSource } from 'typeorm';
import { violates } from '../database/constraint-violation.js';
import { APP_CONFIG } from '../config/config.token.js';
import { type AppConfig } from '../config/app-config.js';
import { targetProblem } from '../common/outbound.js';
import { DomainException } from '../common/problem/domain.exception.js';
import { type FieldError } from '../common/problem/problem.js';
import { rowsOf } from '../database/rows-of.js';
import { KeyVault } from '../secrets/key-vault.js';
import {
  afterCursorSql,
  cursorPage,
  cursorTimeSql,
  cursorWindow,
  uuidPattern,
  type CursorPageQuery,
} from '../common/cursor-page.js';
import { keepIdempotentAnswer } from '../idempotency/idempotent-answer.js';
import { TenantsService } from '../tenants/tenants.service.js';
import { tenantNotFound } from '../tenancy/tenant.errors.js';
import { type WebhookPageDto } from './dto/webhook.dto.js';
import { newSecret } from './signature.js';
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

/** Subscriptions of a tenant, or to every tenant's events when the owner is null (agent-admin). */
@Injectable()
export class WebhooksService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(KeyVault) private readonly vault: KeyVault,
    private readonly audit: AuditLog,
    private readonly tenants: TenantsService,
  ) {}

  /** The tenant rules of every tenant-scoped route: an unknown tenant is 404 here too. */
  private async requireTenant(tenantId: string | null): Promise<void> {
    if (tenantId !== null) await this.tenants.requireTenant(tenantId);
  }

  /** Newest first, by page number or after a cursor (docs/api.md, Pages). */
  async list(owner: string | null, query: CursorPageQuery): Promise<WebhookPageDto> {
    await this.requireTenant(owner);
    const window = cursorWindow(query, uuidPattern);
    const { after } = window;
    const page = this.subscriptions()
      .createQueryBuilder('s')
      .addSelect(cursorTimeSql('s.created_at'), 'cursor_at')
      .where(owner === null ? 's.tenant_id IS NULL' : 's.tenant_id = :owner', { owner })
      .orderBy('s.created_at', 'DESC')
      .addOrderBy('s.id', 'ASC')
      .offset(window.offset)
      // One row more than the page: whether another follows it.
      .limit(window.size + 1);
    if (after !== undefined) {
      page.andWhere(afterCursorSql('s.created_at', 's.id', ':at', 'CAST(:afterId AS uuid)'), {
        at: after.at,
        afterId: after.id,
      });
    }
    const [{ entities, raw }, total] = await Promise.all([
      page.getRawAndEntities<{ s_id: string; cursor_at: string }>(),
      after === undefined
        ? this.subscriptions().count({ where: { tenantId: owner ?? IsNull() } })
        : undefined,
    ]);
    const content = entities.slice(0, window.size);
    const last = raw.find((row) => row.s_id === content.at(-1)?.id);
    return cursorPage(
      content.map(viewOf),
      window,
      total,
      last && { at: last.cursor_at, id: last.s_id },
      entities.length > window.size,
    );
  }

  async get(owner: string | null, id: string): Promise<SubscriptionView> {
    return viewOf(await this.find(owner, id));
  }

  async delete(owner: string | null, id: string, actor: Actor): Promise<void> {
    const { affected } = await this.subscriptions().delete({
      id: await this.idOf(owner, id),
      tenantId: owner ?? IsNull(),
    });
    if (affected === 0) throw webhookNotFound(owner, id);
    this.audit.record('webhook.delete', actor, owner, { webhookId: id });
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
    const subscriptionId = (await this.find(owner, id)).id;
    if (Object.values(changes).every((value) => value === undefined)) {
      throw new DomainException(
        'NOTHING_TO_UPDATE',
        'Give a url, events, description or enabled.',
        [{ field: 'url', message: 'or events, description or enabled is required' }],
      );
    }
    const parameters: unknown[] = [subscriptionId, owner];
    const assignments: string[] = ['updated_at = now()'];
    const assign = (column: string, value: unknown, cast = ''): void => {
      parameters.push(value);
      assignments.push(`${column} = $${parameters.length}${cast}`);
    };
    if (changes.url !== undefined) {
      await this.checkTarget(changes.url);
      assign('url', changes.url);
      assignments.push('backoff_until = NULL');
    }
    if (changes.events !== undefined) assign('events', [...new Set(changes.events)], '::text[]');
    if (changes.description !== undefined) assign('description', changes.description);
    if (changes.enabled === true) {
      for (const [column, reset] of resetOnEnable) {
        assignments.push(`${column} = CASE WHEN enabled THEN ${column} ELSE ${reset} END`);
      }
    }
    if (changes.enabled !== undefined) assign('enabled', changes.enabled);
    const [updated] = rowsOf<ViewColumns>(
      await this.dataSource.query(
        `UPDATE webhook_subscription SET ${assignments.join(', ')}
          WHERE id = $1 AND tenant_id IS NOT DISTINCT FROM $2::varchar
          RETURNING ${viewColumns}`,
        parameters,
      ),
    );
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
    const subscriptionId = await this.idOf(owner, id);
    const secret = newSecret();
    const until = new Date(Date.now() + secretGraceMs);
    const answer = { secret, previousSecretExpiresAt: until.toISOString() };
    // The answer is kept with the rotation, so a retry after an ambiguous 503 replays it (docs/api.md).
    const rotated = await this.dataSource.transaction(async (manager) => {
      // Each box moves with the id of the key that sealed it.
      const rows = rowsOf(
        await manager.query(
          `UPDATE webhook_subscription
              SET previous_secret_sealed = secret_sealed,
                  previous_secret_master_key_id = secret_master_key_id,
                  previous_secret_until = $3, secret_sealed = $4, secret_master_key_id = $5,
                  updated_at = now()
            WHERE id = $1 AND tenant_id IS NOT DISTINCT FROM $2::varchar
            RETURNING id`,
          [
            subscriptionId,
            owner,
            until,
            this.vault.seal(subscriptionId, Buffer.from(secret, 'utf8'), 'webhook-secret'),
            this.vault.masterKeyId,
          ],
        ),
      );
      if (rows.length > 0) await keepIdempotentAnswer(manager, answer);
      return rows;
    });
    if (rotated.length === 0) throw webhookNotFound(owner, id);
    this.audit.record('webhook.rotate-secret', actor, owner, { webhookId: id });
    return answer;
  }

  /** The owner's subscription, or 404 (also for another tenant's, or a tenant's to the admin path). */
  async find(owner: string | null, id: string): Promise<WebhookSubscriptionEntity> {
    const entity = await this.subscriptions().findOneBy({
      id: await this.idOf(owner, id),
      tenantId: owner ?? IsNull(),
    });
    if (entity === null) throw webhookNotFound(owner, id);
    return entity;
  }

  /** A subscription id is a UUID; anything else names none (and must not reach a uuid column). */
  private async idOf(owner: string | null, id: string): Promise<string> {
    await this.requireTenant(owner);
    if (!isUUID(id)) {
      throw webhookNotFound(owner, id);
    }
    return id.toLowerCase();
  }

  private async checkTarget(url: string): Promise<void> {
    const problem = await targetProblem(url, {
      allowPrivate: this.config.webhooks.allowPrivateTargets,
    });
    if (problem !== undefined) {
      const error: FieldError = { field: 'url', message: `is refused: ${problem}` };
      throw new DomainException('VALIDATION_FAILED', `url ${error.message}`, [error]);
    }
  }

  private subscriptions() {
    return this.dataSource.getRepository(WebhookSubscriptionEntity);
  }

  /** Checks the target now (and again at each delivery); the secret is in the answer only. */
  async create(
    tenantId: string | null,
    input: NewSubscription,
    actor: Actor,
  ): Promise<SubscriptionView & { secret: string }> {
    await this.checkTarget(input.url);
    await this.requireTenant(tenantId);
    const id = randomUUID();
    const secret = newSecret();
    const created = await this.dataSource
      .transaction(async (manager) => {
        const entity = await manager.getRepository(WebhookSubscriptionEntity).save({
          id,
          tenantId,
          url: input.url,
          events: [...new Set(input.events ?? [])],
          description: input.description ?? null,
          secretSealed: this.vault.seal(id, Buffer.from(secret, 'utf8'), 'webhook-secret'),
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
}

/** What enabling a disabled subscription again resets: its failures, its pause and why it stopped. */
const resetOnEnable = [
  ['consecutive_failures', '0'],
  ['backoff_ms', '0'],
  ['backoff_until', 'NULL'],
  ['disabled_reason', 'NULL'],
] as const;

/** The columns of a subscription's view, named as the entity names them. */
const viewColumns = `id, tenant_id AS "tenantId", url, events, description, enabled,
  disabled_reason AS "disabledReason", created_at AS "createdAt", updated_at AS "updatedAt"`;
type ViewColumns = Pick<WebhookSubscriptionEntity, keyof SubscriptionView>;

/** How long the secret before a rotation still signs. */
const secretGraceMs = 24 * 60 * 60 * 1000;

export type SubscriptionChanges = Partial<NewSubscription & { enabled: boolean }>;

function webhookNotFound(owner: string | null, id: string): DomainException {
  const whose = owner === null ? 'There is no all-tenant' : 'The tenant has no';
  return new DomainException('WEBHOOK_NOT_FOUND', `${whose} webhook subscription '${id}'.`);
}

export function viewOf(entity: ViewColumns): SubscriptionView {
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
