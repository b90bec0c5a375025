import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { MoreThan, Repository } from 'typeorm';
import { IssuerAuthSessionEntity } from './issuer-auth-session.entity.js';

/** One batch of login pages past their expiry $1 (InitPlan and TID scan: issuer-purge.ts says why). */
const deleteExpiredBatchSql = `
  WITH deleted AS (
    DELETE FROM issuer_auth_session WHERE ctid = ANY(ARRAY(
      SELECT ctid FROM issuer_auth_session WHERE expires_at < $1
       LIMIT $2 FOR UPDATE SKIP LOCKED))
    RETURNING 1)
  SELECT count(*)::int AS count FROM deleted`;

/** A login page (tab) of a browser's root session: the key of an issuer_auth_session row. */
export interface LoginPageKey {
  rootHash: string;
  tabId: string;
}

/** The issuer's pending login pages (issuer_auth_session), by hashed cookie and tab. */
@Injectable()
export class IssuerAuthSessionRepository {
  constructor(
    @InjectRepository(IssuerAuthSessionEntity)
    private readonly logins: Repository<IssuerAuthSessionEntity>,
  ) {}

  /** Whether the root session has a page that lives after `now`. */
  hasLivePage(rootHash: string, now: Date): Promise<boolean> {
    return this.logins.existsBy({ rootHash, expiresAt: MoreThan(now) });
  }

  async insert(page: IssuerAuthSessionEntity): Promise<void> {
    await this.logins.insert(page);
  }

  /** The page of this root session, tab and client, if it lives after `now`. */
  findLive(
    key: LoginPageKey,
    clientId: string,
    now: Date,
  ): Promise<IssuerAuthSessionEntity | null> {
    return this.logins.findOneBy({ ...key, clientId, expiresAt: MoreThan(now) });
  }

  /**
   * Replaces the page's session code `codeHash` by `nextCodeHash` if the page lives after `now`; one
   * statement, so that of concurrent posts of one code exactly one gets true.
   */
  async swapCode(
    key: LoginPageKey,
    codeHash: string,
    nextCodeHash: string,
    now: Date,
    expiresAt: Date,
  ): Promise<boolean> {
    const result = await this.logins.update(
      { ...key, sessionCodeHash: codeHash, expiresAt: MoreThan(now) },
      { sessionCodeHash: nextCodeHash, expiresAt },
    );
    return result.affected === 1;
  }

  async setCode(key: LoginPageKey, codeHash: string, expiresAt: Date): Promise<void> {
    await this.logins.update(key, { sessionCodeHash: codeHash, expiresAt });
  }

  async delete(key: LoginPageKey): Promise<void> {
    await this.logins.delete(key);
  }

  /** Deletes up to `limit` pages that expired before `now`. */
  async deleteExpiredBatch(now: Date, limit: number): Promise<number> {
    const [row] = await this.logins.query<{ count: number }[]>(deleteExpiredBatchSql, [now, limit]);
    return row?.count ?? 0;
  }
}
