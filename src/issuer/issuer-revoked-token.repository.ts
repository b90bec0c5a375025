import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { IssuerRevokedTokenEntity } from './issuer-revoked-token.entity.js';

/** One batch of revoked token ids past their expiry $1 (InitPlan and TID scan: issuer-purge.ts says why). */
const deleteExpiredBatchSql = `
  WITH deleted AS (
    DELETE FROM issuer_revoked_token WHERE ctid = ANY(ARRAY(
      SELECT ctid FROM issuer_revoked_token WHERE expires_at < $1
       LIMIT $2 FOR UPDATE SKIP LOCKED))
    RETURNING 1)
  SELECT count(*)::int AS count FROM deleted`;

/** The ids of revoked access tokens (issuer_revoked_token). */
@Injectable()
export class IssuerRevokedTokenRepository {
  constructor(
    @InjectRepository(IssuerRevokedTokenEntity)
    private readonly revoked: Repository<IssuerRevokedTokenEntity>,
  ) {}

  /** Adds the id; one revoked already keeps its first expiry. */
  async insertIfAbsent(jti: string, expiresAt: Date): Promise<void> {
    await this.revoked
      .createQueryBuilder()
      .insert()
      .values({ jti, expiresAt })
      .orIgnore()
      .execute();
  }

  exists(jti: string): Promise<boolean> {
    return this.revoked.existsBy({ jti });
  }

  /** Deletes up to `limit` ids that expired before `now`. */
  async deleteExpiredBatch(now: Date, limit: number): Promise<number> {
    const [row] = await this.revoked.query<{ count: number }[]>(deleteExpiredBatchSql, [
      now,
      limit,
    ]);
    return row?.count ?? 0;
  }
}
