import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { IsNull, type DataSource, type EntityManager } from 'typeorm';
import { afterCursorSql, cursorTimeSql, type Cursor } from '../common/cursor-page.js';
import { rowsOf } from '../database/rows-of.js';
import { WebhookSubscriptionEntity } from './webhook-subscription.entity.js';

/** A subscription's columns that callers may see (never its secrets). */
export type SubscriptionRow = Pick<
  WebhookSubscriptionEntity,
  | 'id'
  | 'tenantId'
  | 'url'
  | 'events'
  | 'description'
  | 'enabled'
  | 'disabledReason'
  | 'createdAt'
  | 'updatedAt'
>;

/** A new subscription's row, its secret sealed. */
export type NewSubscriptionRow = Pick<
  WebhookSubscriptionEntity,
  'id' | 'tenantId' | 'url' | 'events' | 'description' | 'secretSealed' | 'secretMasterKeyId'
>;

/** What an update changes; null: unchanged. */
export interface SubscriptionUpdate {
  url: string | null;
  events: string[] | null;
  /** Given, even as null (which clears it). */
  description: { value: string | null } | null;
  enabled: boolean | null;
}

/** The new secret of a rotation, and until when the one it replaces still signs. */
export interface RotatedSecret {
  sealed: Buffer;
  masterKeyId: string;
  previousUntil: Date;
}

/** The circuit's settings (webhook-attempts.ts). */
export interface CircuitSettings {
  pauseAfterFailures: number;
  firstPauseMs: number;
  longestPauseMs: number;
}

/** A failed attempt counted: failures in a row, the pause, and whether this failure started it. */
export interface CountedFailure {
  failures: number;
  paused_until: Date | null;
  opened: boolean;
}

/** The webhook_subscription table: its subscriptions, their secrets and their circuits. */
@Injectable()
export class WebhookSubscriptionRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The owner's subscriptions from `offset` (or after a cursor), newest first, with their cursors. */
  async page(
    owner: string | null,
    window: { offset: number; limit: number; after?: Cursor },
  ): Promise<{ subscription: WebhookSubscriptionEntity; cursorAt: string }[]> {
    const { after } = window;
    const page = this.subscriptions()
      .createQueryBuilder('s')
      .addSelect(cursorTimeSql('s.created_at'), 'cursor_at')
      .where(owner === null ? 's.tenant_id IS NULL' : 's.tenant_id = :owner', { owner })
      .orderBy('s.created_at', 'DESC')
      .addOrderBy('s.id', 'ASC')
      .offset(window.offset)
      .limit(window.limit);
    if (after !== undefined) {
      page.andWhere(afterCursorSql('s.created_at', 's.id', ':at', 'CAST(:afterId AS uuid)'), {
        at: after.at,
        afterId: after.id,
      });
    }
    const { entities, raw } = await page.getRawAndEntities<{ s_id: string; cursor_at: string }>();
    const cursors = new Map(raw.map((row) => [row.s_id, row.cursor_at]));
    return entities.map((subscription) => ({
      subscription,
      cursorAt: cursors.get(subscription.id) ?? '',
    }));
  }

  count(owner: string | null): Promise<number> {
    return this.subscriptions().count({ where: { tenantId: owner ?? IsNull() } });
  }

  find(owner: string | null, id: string): Promise<WebhookSubscriptionEntity | null> {
    return this.subscriptions().findOneBy({ id, tenantId: owner ?? IsNull() });
  }

  /** Whether the owner had it. */
  async delete(owner: string | null, id: string): Promise<boolean> {
    const { affected } = await this.subscriptions().delete({ id, tenantId: owner ?? IsNull() });
    return affected !== 0;
  }

  insert(manager: EntityManager, row: NewSubscriptionRow): Promise<WebhookSubscriptionEntity> {
    return manager.getRepository(WebhookSubscriptionEntity).save(row);
  }

  /** The owner's subscription as changed; undefined when it has none of that id. */
  async update(
    owner: string | null,
    id: string,
    update: SubscriptionUpdate,
  ): Promise<SubscriptionRow | undefined> {
    const [updated] = rowsOf<SubscriptionRow>(
      await this.dataSource.query(updateStatement, [
        id,
        owner,
        update.url,
        update.events,
        update.description !== null,
        update.description?.value ?? null,
        update.enabled,
      ]),
    );
    return updated;
  }

  /** The new secret in, the current one to the previous one; whether the owner had it. */
  async rotateSecret(
    manager: EntityManager,
    owner: string | null,
    id: string,
    secret: RotatedSecret,
  ): Promise<boolean> {
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
        [id, owner, secret.previousUntil, secret.sealed, secret.masterKeyId],
      ),
    );
    return rows.length > 0;
  }

  /**
   * One more failure in a row, which pauses the circuit when there are enough and it is not paused
   * already (twice the last pause, within the settings); undefined when the subscription is gone.
   */
  async countFailure(
    manager: EntityManager,
    id: string,
    circuit: CircuitSettings,
  ): Promise<CountedFailure | undefined> {
    const [counted] = rowsOf<CountedFailure>(
      await manager.query(
        `WITH before AS (
           SELECT id, backoff_until FROM webhook_subscription WHERE id = $1 FOR NO KEY UPDATE)
         UPDATE webhook_subscription s
            SET consecutive_failures = s.consecutive_failures + 1,
                backoff_ms = CASE
                  WHEN s.consecutive_failures + 1 >= $2
                       AND (s.backoff_until IS NULL OR s.backoff_until <= now())
                  THEN least(greatest(s.backoff_ms * 2, $3), $4)
                  ELSE s.backoff_ms END,
                backoff_until = CASE
                  WHEN s.consecutive_failures + 1 >= $2
                       AND (s.backoff_until IS NULL OR s.backoff_until <= now())
                  THEN now() + least(greatest(s.backoff_ms * 2, $3), $4) * interval '1 millisecond'
                  ELSE s.backoff_until END
           FROM before WHERE s.id = before.id
         RETURNING s.consecutive_failures AS failures, s.backoff_until AS paused_until,
                   s.backoff_until IS DISTINCT FROM before.backoff_until AS opened`,
        [id, circuit.pauseAfterFailures, circuit.firstPauseMs, circuit.longestPauseMs],
      ),
    );
    return counted;
  }

  /** Whether this disabled it (false: already disabled, or gone). */
  async disable(manager: EntityManager, id: string, reason: string): Promise<boolean> {
    const changed = await manager.query<unknown>(
      `UPDATE webhook_subscription SET enabled = false, disabled_reason = $2, updated_at = now()
        WHERE id = $1 AND enabled RETURNING id`,
      [id, reason],
    );
    return rowsOf(changed).length > 0;
  }

  private subscriptions() {
    return this.dataSource.getRepository(WebhookSubscriptionEntity);
  }
}

/**
 * Changes only what is given ($3 to $7, null: unchanged), in one statement: a concurrent change or
 * rotation is never undone. A changed URL ends a pause; enabling a disabled subscription again clears
 * its failures, its pause and why it stopped.
 */
const updateStatement = `
  UPDATE webhook_subscription
     SET url = coalesce($3::varchar, url),
         events = coalesce($4::text[], events),
         description = CASE WHEN $5::boolean THEN $6::varchar ELSE description END,
         enabled = coalesce($7::boolean, enabled),
         consecutive_failures = CASE WHEN $7::boolean AND NOT enabled THEN 0
                                     ELSE consecutive_failures END,
         backoff_ms = CASE WHEN $7::boolean AND NOT enabled THEN 0 ELSE backoff_ms END,
         backoff_until = CASE WHEN $3::varchar IS NOT NULL OR ($7::boolean AND NOT enabled) THEN NULL
                              ELSE backoff_until END,
         disabled_reason = CASE WHEN $7::boolean AND NOT enabled THEN NULL
                                ELSE disabled_reason END,
         updated_at = now()
   WHERE id = $1 AND tenant_id IS NOT DISTINCT FROM $2::varchar
   RETURNING id, tenant_id AS "tenantId", url, events, description, enabled,
             disabled_reason AS "disabledReason", created_at AS "createdAt", updated_at AS "updatedAt"`;
