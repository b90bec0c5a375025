import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { type DataSource } from 'typeorm';
import { type ChangeStatement } from '../../events/event-outbox.js';
import { type AuthorizationEntity } from './authorization.entity.js';

/** An authorization as the flow reads it back (no hashes, no timestamps but its end). */
export type Authorization = Pick<
  AuthorizationEntity,
  | 'id'
  | 'tenantId'
  | 'clientId'
  | 'redirectUri'
  | 'walletState'
  | 'codeChallenge'
  | 'dpopJkt'
  | 'configurationId'
  | 'offerId'
  | 'byAuthorizationDetails'
  | 'loginSealed'
  | 'loginMasterKeyId'
  | 'claimsSealed'
  | 'claimsMasterKeyId'
  | 'expiresAt'
>;

/** A pushed request as PAR stores it. */
export type PushedAuthorization = Omit<
  Authorization,
  'loginSealed' | 'loginMasterKeyId' | 'claimsSealed' | 'claimsMasterKeyId'
> & { requestUriHash: Buffer };

/** What the authorize step stores: the login's state (by hash) and its sealed nonce and verifier. */
export interface LoginStarted {
  loginStateHash: Buffer;
  loginSealed: Buffer;
  loginMasterKeyId: string;
  expiresAt: Date;
}

/** What the callback stores with the code. */
export interface CodeIssued {
  codeHash: Buffer;
  offerId: string;
  claimsSealed: Buffer;
  claimsMasterKeyId: string;
  expiresAt: Date;
}

const columns = `id, tenant_id AS "tenantId", client_id AS "clientId", redirect_uri AS "redirectUri",
  wallet_state AS "walletState", code_challenge AS "codeChallenge", dpop_jkt AS "dpopJkt",
  configuration_id AS "configurationId", offer_id AS "offerId",
  by_authorization_details AS "byAuthorizationDetails", login_sealed AS "loginSealed",
  login_master_key_id AS "loginMasterKeyId", claims_sealed AS "claimsSealed",
  claims_master_key_id AS "claimsMasterKeyId", expires_at AS "expiresAt"`;

/**
 * The authorizations of the code flow (oid4vci_authorization): each step one statement that moves the
 * row from the state it must be in, so that a request URI, a login state and a code are each spent
 * once, by whichever of two concurrent requests the row lock lets through first.
 */
@Injectable()
export class AuthorizationRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async insertPushed(row: PushedAuthorization): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO oid4vci_authorization (id, tenant_id, state, request_uri_hash, client_id,
         redirect_uri, wallet_state, code_challenge, dpop_jkt, configuration_id, offer_id,
         by_authorization_details, expires_at)
       VALUES ($1, $2, 'pushed', $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
      [
        row.id,
        row.tenantId,
        row.requestUriHash,
        row.clientId,
        row.redirectUri,
        row.walletState,
        row.codeChallenge,
        row.dpopJkt,
        row.configurationId,
        row.offerId,
        row.byAuthorizationDetails,
        row.expiresAt,
      ],
    );
  }

  /** The pushed request spent by the authorize step (its client's), the login's secrets stored. */
  startLogin(
    tenantId: string,
    requestUriHash: Buffer,
    clientId: string,
    login: LoginStarted,
    now: Date,
  ): Promise<Authorization | undefined> {
    return this.changed(
      `UPDATE oid4vci_authorization
          SET state = 'login', login_state_hash = $4, login_sealed = $5, login_master_key_id = $6,
              expires_at = $7
        WHERE request_uri_hash = $2 AND tenant_id = $1 AND client_id = $3 AND state = 'pushed'
          AND expires_at > $8
        RETURNING ${columns}`,
      [
        tenantId,
        requestUriHash,
        clientId,
        login.loginStateHash,
        login.loginSealed,
        login.loginMasterKeyId,
        login.expiresAt,
        now,
      ],
    );
  }

  /** The login's state spent by its callback. */
  takeLogin(
    tenantId: string,
    loginStateHash: Buffer,
    now: Date,
  ): Promise<Authorization | undefined> {
    return this.changed(
      `UPDATE oid4vci_authorization SET state = 'finishing'
        WHERE login_state_hash = $2 AND tenant_id = $1 AND state = 'login' AND expires_at > $3
        RETURNING ${columns}`,
      [tenantId, loginStateHash, now],
    );
  }

  /** The code of a finished login; false when the authorization is no longer finishing. */
  async issueCode(id: string, code: CodeIssued): Promise<boolean> {
    const row = await this.changed(
      `UPDATE oid4vci_authorization
          SET state = 'code', code_hash = $2, offer_id = $3, claims_sealed = $4,
              claims_master_key_id = $5, expires_at = $6, login_sealed = NULL
        WHERE id = $1 AND state = 'finishing'
        RETURNING ${columns}`,
      [id, code.codeHash, code.offerId, code.claimsSealed, code.claimsMasterKeyId, code.expiresAt],
    );
    return row !== undefined;
  }

  /** The login refused, for `EventOutbox.withChange`. */
  denyStatement(id: string): ChangeStatement {
    return {
      sql: `UPDATE oid4vci_authorization SET state = 'denied', login_sealed = NULL
             WHERE id = $1 AND state = 'finishing' RETURNING id`,
      parameters: [id],
    };
  }

  /**
   * The code spent by the token request: whoever redeems it first gets the row, nobody after; its
   * sealed claims stay until the purge deletes the row at its end, a minute later.
   */
  redeem(tenantId: string, codeHash: Buffer, now: Date): Promise<Authorization | undefined> {
    return this.changed(
      `UPDATE oid4vci_authorization SET state = 'redeemed'
        WHERE code_hash = $2 AND tenant_id = $1 AND state = 'code' AND expires_at > $3
        RETURNING ${columns}`,
      [tenantId, codeHash, now],
    );
  }

  /** Deletes up to `limit` authorizations past their time, in any state; answers how many. */
  async deleteExpiredBatch(now: Date, limit: number): Promise<number> {
    const [, count] = await this.dataSource.query<[unknown, number]>(
      `DELETE FROM oid4vci_authorization WHERE id IN (
         SELECT id FROM oid4vci_authorization WHERE expires_at <= $1
         LIMIT $2 FOR UPDATE SKIP LOCKED)`,
      [now, limit],
    );
    return count;
  }

  private async changed(sql: string, parameters: unknown[]): Promise<Authorization | undefined> {
    const [rows] = await this.dataSource.query<[Authorization[], number]>(sql, parameters);
    return rows[0];
  }
}
