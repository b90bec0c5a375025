import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, Repository } from 'typeorm';
import { IssuerSessionEntity } from './issuer-session.entity.js';

/**
 * One batch of sessions no longer active: ended, idle since before $1 or started before $2. The batch
 * is picked once by an uncorrelated subquery (an InitPlan) and its rows found by ctid (a TID scan), so
 * the work is bounded whatever the planner believes of the table (issuer-purge.ts says why).
 */
const deleteInactiveBatchSql = `
  WITH deleted AS (
    DELETE FROM issuer_session WHERE ctid = ANY(ARRAY(
      SELECT ctid FROM issuer_session
       WHERE ended_at IS NOT NULL OR last_refreshed_at < $1 OR started_at < $2
       LIMIT $3 FOR UPDATE SKIP LOCKED))
    RETURNING 1)
  SELECT count(*)::int AS count FROM deleted`;

/** The issuer's user sessions (issuer_session). */
@Injectable()
export class IssuerSessionRepository {
  constructor(
    @InjectRepository(IssuerSessionEntity)
    private readonly sessions: Repository<IssuerSessionEntity>,
  ) {}

  async insert(session: IssuerSessionEntity): Promise<void> {
    await this.sessions.insert(session);
  }

  findById(id: string): Promise<IssuerSessionEntity | null> {
    return this.sessions.findOneBy({ id });
  }

  async setLastRefreshed(id: string, at: Date): Promise<void> {
    await this.sessions.update({ id }, { lastRefreshedAt: at });
  }

  /** Ends the session at `at`, unless it has ended already. */
  async end(id: string, at: Date): Promise<void> {
    await this.sessions.update({ id, endedAt: IsNull() }, { endedAt: at });
  }

  /** Deletes up to `limit` sessions that ended, were idle since `idleBefore` or started before `startedBefore`. */
  async deleteInactiveBatch(idleBefore: Date, startedBefore: Date, limit: number): Promise<number> {
    const [row] = await this.sessions.query<{ count: number }[]>(deleteInactiveBatchSql, [
      idleBefore,
      startedBefore,
      limit,
    ]);
    return row?.count ?? 0;
  }
}
