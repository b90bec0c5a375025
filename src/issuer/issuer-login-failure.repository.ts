import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository, type EntityManager } from 'typeorm';
import { IssuerLoginFailureEntity } from './issuer-login-failure.entity.js';
import { type CountedFailures } from './login-failure-state.js';

/** One batch of rows without a permanent lock (InitPlan and TID scan: issuer-purge.ts says why). */
const deleteUnlockedBatchSql = `
  WITH deleted AS (
    DELETE FROM issuer_login_failure WHERE ctid = ANY(ARRAY(
      SELECT ctid FROM issuer_login_failure WHERE permanently_locked_at IS NULL
       LIMIT $1 FOR UPDATE SKIP LOCKED))
    RETURNING 1)
  SELECT count(*)::int AS count FROM deleted`;

/** One batch of rows without a permanent lock whose last failure was before $1. */
const deleteStaleBatchSql = `
  WITH deleted AS (
    DELETE FROM issuer_login_failure WHERE ctid = ANY(ARRAY(
      SELECT ctid FROM issuer_login_failure
       WHERE permanently_locked_at IS NULL AND last_failure < $1
       LIMIT $2 FOR UPDATE SKIP LOCKED))
    RETURNING 1)
  SELECT count(*)::int AS count FROM deleted`;

/** A user's row after a failure. */
export type LoginFailureValues = CountedFailures & { userId: string; username: string };

/** Failed password logins per realm user (issuer_login_failure). */
@Injectable()
export class IssuerLoginFailureRepository {
  constructor(
    @InjectRepository(IssuerLoginFailureEntity)
    private readonly failures: Repository<IssuerLoginFailureEntity>,
  ) {}

  /** The user's row, locked (FOR UPDATE) until the caller's transaction ends. */
  findLocked(manager: EntityManager, userId: string): Promise<IssuerLoginFailureEntity | null> {
    return manager.getRepository(IssuerLoginFailureEntity).findOne({
      where: { userId },
      lock: { mode: 'pessimistic_write' },
    });
  }

  async update(manager: EntityManager, values: LoginFailureValues): Promise<void> {
    await manager.getRepository(IssuerLoginFailureEntity).update({ userId: values.userId }, values);
  }

  /** Inserts the user's row; false when another attempt inserted it first. */
  async insertIfAbsent(manager: EntityManager, values: LoginFailureValues): Promise<boolean> {
    const inserted = await manager
      .getRepository(IssuerLoginFailureEntity)
      .createQueryBuilder()
      .insert()
      .values(values)
      .orIgnore()
      .returning(['userId'])
      .execute();
    return (inserted.raw as unknown[]).length > 0;
  }

  async delete(userId: string): Promise<void> {
    await this.failures.delete({ userId });
  }

  /** Deletes up to `limit` rows that are not permanent locks. */
  async deleteUnlockedBatch(limit: number): Promise<number> {
    const [row] = await this.failures.query<{ count: number }[]>(deleteUnlockedBatchSql, [limit]);
    return row?.count ?? 0;
  }

  /** Deletes up to `limit` rows that are not permanent locks, their last failure before `before`. */
  async deleteStaleBatch(before: Date, limit: number): Promise<number> {
    const [row] = await this.failures.query<{ count: number }[]>(deleteStaleBatchSql, [
      before,
      limit,
    ]);
    return row?.count ?? 0;
  }
}
