import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { type DataSource, type EntityManager } from 'typeorm';

/**
 * Takes the key: a free one, an expired one, or one whose attempt's lease ran out and that names the
 * same request. One statement, so that of concurrent attempts exactly one gets the key.
 */
const takeSql = `
  INSERT INTO idempotency_key AS k (id, fingerprint, owner, state, lease_until, expires_at)
  VALUES ($1, $2, $3, 'in-progress', now() + make_interval(secs => $4),
          now() + make_interval(secs => $5))
  ON CONFLICT (id) DO UPDATE
     SET fingerprint = EXCLUDED.fingerprint, owner = EXCLUDED.owner, state = 'in-progress',
         lease_until = EXCLUDED.lease_until, expires_at = EXCLUDED.expires_at,
         status = NULL, answer_sealed = NULL, answer_master_key_id = NULL
   WHERE k.expires_at <= now()
      OR (k.state = 'in-progress' AND k.lease_until <= now()
          AND k.fingerprint = EXCLUDED.fingerprint)
  RETURNING k.owner`;

const findLiveSql = `
  SELECT owner, fingerprint, state, status, answer_sealed, answer_master_key_id
    FROM idempotency_key WHERE id = $1 AND expires_at > now()`;

/** Only the attempt that holds the key records its answer. */
const completeSql = `
  UPDATE idempotency_key
     SET state = 'completed', status = $3, answer_sealed = $4, answer_master_key_id = $5
   WHERE id = $1 AND owner = $2 AND state = 'in-progress'`;

const releaseSql = `
  DELETE FROM idempotency_key WHERE id = $1 AND owner = $2 AND state = 'in-progress'`;

const deleteExpiredBatchSql = `
  WITH deleted AS (
    DELETE FROM idempotency_key WHERE id IN (
      SELECT id FROM idempotency_key WHERE expires_at <= now()
      LIMIT $1 FOR UPDATE SKIP LOCKED)
    RETURNING 1)
  SELECT count(*)::int AS count FROM deleted`;

/** A live key as stored. */
export interface KeyRow {
  owner: string;
  fingerprint: string;
  state: 'in-progress' | 'completed';
  status: number | null;
  answer_sealed: Buffer | null;
  answer_master_key_id: string | null;
}

/** The answer an attempt records for the key it holds, sealed. */
export interface KeptAnswer {
  rowId: string;
  owner: string;
  status: number;
  box: Buffer;
  masterKeyId: string;
}

/** The idempotency keys (idempotency_key); times are the database's, so every instance agrees. */
@Injectable()
export class IdempotencyKeyRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** True when `owner` now holds the key, for `leaseSeconds`, the key kept `lifetimeSeconds`. */
  async take(
    rowId: string,
    fingerprint: string,
    owner: string,
    leaseSeconds: number,
    lifetimeSeconds: number,
  ): Promise<boolean> {
    const taken = await this.dataSource.query<{ owner: string }[]>(takeSql, [
      rowId,
      fingerprint,
      owner,
      leaseSeconds,
      lifetimeSeconds,
    ]);
    return taken[0]?.owner === owner;
  }

  /** The key, unless it is absent or expired. */
  async findLive(rowId: string): Promise<KeyRow | undefined> {
    const [row] = await this.dataSource.query<KeyRow[]>(findLiveSql, [rowId]);
    return row;
  }

  /**
   * Records the answer if the attempt still holds the key; in the caller's transaction when given
   * one. False when another attempt took the key over.
   */
  async complete(answer: KeptAnswer, manager?: EntityManager): Promise<boolean> {
    const [, updated] = await (manager ?? this.dataSource.manager).query<[unknown[], number]>(
      completeSql,
      [answer.rowId, answer.owner, answer.status, answer.box, answer.masterKeyId],
    );
    return updated === 1;
  }

  /** Frees the key of an attempt that holds it and recorded no answer. */
  async release(rowId: string, owner: string): Promise<void> {
    await this.dataSource.query(releaseSql, [rowId, owner]);
  }

  /** Deletes up to `limit` expired keys; answers how many. */
  async deleteExpiredBatch(limit: number): Promise<number> {
    const [row] = await this.dataSource.query<{ count: number }[]>(deleteExpiredBatchSql, [limit]);
    return row?.count ?? 0;
  }
}
