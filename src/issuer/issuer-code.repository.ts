import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { IssuerCodeEntity } from './issuer-code.entity.js';

/** One batch of codes past their expiry $1 (InitPlan and TID scan: issuer-purge.ts says why). */
const deleteExpiredBatchSql = `
  WITH deleted AS (
    DELETE FROM issuer_code WHERE ctid = ANY(ARRAY(
      SELECT ctid FROM issuer_code WHERE expires_at < $1
       LIMIT $2 FOR UPDATE SKIP LOCKED))
    RETURNING 1)
  SELECT count(*)::int AS count FROM deleted`;

/** A code row as the UPDATE ... RETURNING of `consume` gives it back. */
interface CodeRow {
  code_hash: string;
  session_id: string;
  client_id: string;
  redirect_uri: string;
  code_challenge: string | null;
  code_challenge_method: string | null;
  scope: string;
  nonce: string | null;
  expires_at: Date;
  used_at: Date;
}

/** The issuer's one-time authorization codes (issuer_code), by the SHA-256 of the code. */
@Injectable()
export class IssuerCodeRepository {
  constructor(
    @InjectRepository(IssuerCodeEntity) private readonly codes: Repository<IssuerCodeEntity>,
  ) {}

  async insert(code: IssuerCodeEntity): Promise<void> {
    await this.codes.insert(code);
  }

  /**
   * Marks the code used at `now` if it is unused and unexpired, and returns it; undefined otherwise.
   * One statement, so that of concurrent redemptions exactly one gets the code.
   */
  async consume(codeHash: string, now: Date): Promise<IssuerCodeEntity | undefined> {
    const result = await this.codes
      .createQueryBuilder()
      .update(IssuerCodeEntity)
      .set({ usedAt: now })
      .where('code_hash = :hash AND used_at IS NULL AND expires_at > :now', { hash: codeHash, now })
      .returning('*')
      .execute();
    const [row] = result.raw as CodeRow[];
    if (row === undefined) return undefined;
    return {
      codeHash: String(row.code_hash),
      sessionId: String(row.session_id),
      clientId: String(row.client_id),
      redirectUri: String(row.redirect_uri),
      codeChallenge: row.code_challenge ?? null,
      codeChallengeMethod: row.code_challenge_method ?? null,
      scope: String(row.scope),
      nonce: row.nonce ?? null,
      expiresAt: row.expires_at,
      usedAt: row.used_at,
    };
  }

  findByHash(codeHash: string): Promise<IssuerCodeEntity | null> {
    return this.codes.findOneBy({ codeHash });
  }

  /** Deletes up to `limit` codes that expired before `now`. */
  async deleteExpiredBatch(now: Date, limit: number): Promise<number> {
    const [row] = await this.codes.query<{ count: number }[]>(deleteExpiredBatchSql, [now, limit]);
    return row?.count ?? 0;
  }
}
