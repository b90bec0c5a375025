import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { type DataSource, type EntityManager } from 'typeorm';
import {
  tenantTrustColumns,
  tenantTrustOf,
  type TenantTrust,
  type TenantTrustColumns,
} from '../../credentials/verifying/tenant-trust.js';
import { EntityRead } from '../../database/entity-read.js';
import { recordJson } from '../../database/record-json.js';
import { type ChangeStatement } from '../../events/event-outbox.js';
import {
  PresentationRequestEntity,
  type PresentedCredentialSummary,
} from './presentation-request.entity.js';

/**
 * The request $1 is the tenant's ($2), pending and in time ($3): tested on its row, locked by its id
 * alone (docs/performance.md, "Keyed statements").
 */
const pendingByKey = `(SELECT r.tenant_id = $2 AND r.status = 'pending' AND r.expires_at > $3
                          FROM oid4vp_request r WHERE r.id = $1 FOR NO KEY UPDATE)`;

/** How a wallet's answer ended a pending request. */
export interface Conclusion {
  status: 'verified' | 'failed';
  outcomeCode: string | null;
  outcomeReason: string | null;
  presented: Record<string, PresentedCredentialSummary[]> | null;
  claimsSealed: Buffer | null;
  claimsMasterKeyId: string | null;
  /** Set when verified with a redirect: the SHA-256 of the response code given to the wallet. */
  responseCodeHash: Buffer | null;
}

/** A new request as the service builds it; the creation time is the database's. */
export type NewPresentationRequest = Pick<
  PresentationRequestEntity,
  | 'id'
  | 'tenantId'
  | 'dcqlQuery'
  | 'responseMode'
  | 'requestUriMethod'
  | 'trustedIssuers'
  | 'redirectUri'
  | 'expectedOrigins'
  | 'clientId'
  | 'nonce'
  | 'state'
  | 'referenceHash'
  | 'secretsSealed'
  | 'masterKeyId'
  | 'expiresAt'
>;

type ByReference = EntityRead<PresentationRequestEntity, 'tenantId' | 'referenceHash'>;

/** The one repository of `oid4vp_request`: the API's statements and the wallet endpoints'. */
@Injectable()
export class PresentationRequestRepository {
  /** Every wallet request reads one by its reference: a statement written once. */
  private readonly byReference: ByReference;
  /** An answer's read: the request with what its tenant trusts, one round trip. */
  private readonly byReferenceWithTrust: ByReference;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    const keys = ['tenantId', 'referenceHash'] as const;
    this.byReference = new EntityRead(dataSource, PresentationRequestEntity, keys);
    this.byReferenceWithTrust = new EntityRead(
      dataSource,
      PresentationRequestEntity,
      keys,
      undefined,
      tenantTrustColumns,
    );
  }

  private repo(manager?: EntityManager) {
    return (manager ?? this.dataSource.manager).getRepository(PresentationRequestEntity);
  }

  /** The request a `request_uri` or `response_uri` names, by the hash of its reference. */
  findByReference(
    tenantId: string,
    referenceHash: Buffer,
  ): Promise<PresentationRequestEntity | null> {
    return this.byReference.one({ tenantId, referenceHash });
  }

  /**
   * The request a `response_uri` names, with its tenant's trusted issuers and trust anchors as they
   * are now (the views their owners publish), for verifying the answer without a read of its own.
   */
  async findByReferenceWithTrust(
    tenantId: string,
    referenceHash: Buffer,
  ): Promise<{ request: PresentationRequestEntity; trust: TenantTrust } | null> {
    const row = (await this.byReferenceWithTrust.one({ tenantId, referenceHash })) as
      (PresentationRequestEntity & TenantTrustColumns) | null;
    if (row === null) return null;
    const { tenantTrustedIssuers, tenantTrustAnchors, ...request } = row;
    return { request, trust: tenantTrustOf({ tenantTrustedIssuers, tenantTrustAnchors }) };
  }

  /**
   * Ends a pending request with the wallet's one answer, when it is still pending and in time, for
   * `EventOutbox.withChange` (its event in the same statement): no row when another answer came first
   * or the time is up, and then nothing changed.
   */
  concludeStatement(
    tenantId: string,
    id: string,
    conclusion: Conclusion,
    now: Date,
  ): ChangeStatement {
    return {
      sql: `UPDATE oid4vp_request
               SET status = $4, outcome_code = $5, outcome_reason = $6, presented = $7::jsonb,
                   claims_sealed = $8, claims_master_key_id = $9, response_code_hash = $10,
                   ended_at = $3
             WHERE id = $1 AND ${pendingByKey}
             RETURNING id`,
      parameters: [
        id,
        tenantId,
        now,
        conclusion.status,
        conclusion.outcomeCode,
        conclusion.outcomeReason,
        conclusion.presented === null ? null : JSON.stringify(conclusion.presented),
        conclusion.claimsSealed,
        conclusion.claimsMasterKeyId,
        conclusion.responseCodeHash,
      ],
    };
  }

  /**
   * Counts one refused answer of a pending request in time, in the caller's transaction (the row
   * stays locked until it ends): the count so far, or undefined when the request is no longer open.
   */
  async countRefusal(
    manager: EntityManager,
    tenantId: string,
    id: string,
    now: Date,
  ): Promise<number | undefined> {
    const [rows] = await manager.query<[{ refused_answers: number }[], number]>(
      `UPDATE oid4vp_request SET refused_answers = refused_answers + 1
        WHERE id = $1 AND ${pendingByKey}
        RETURNING refused_answers`,
      [id, tenantId, now],
    );
    return rows[0]?.refused_answers;
  }

  // The tenant's API (presentation-requests.service.ts) and its jobs (request-housekeeping.ts).

  /** One page of the tenant's requests by creation time (then id) and how many it has in all. */
  page(
    tenantId: string,
    request: { direction: 'ASC' | 'DESC'; offset: number; size: number },
  ): Promise<[PresentationRequestEntity[], number]> {
    return this.repo().findAndCount({
      where: { tenantId },
      order: { createdAt: request.direction, id: request.direction },
      skip: request.offset,
      take: request.size,
    });
  }

  findById(tenantId: string, id: string): Promise<PresentationRequestEntity | null> {
    return this.repo().findOneBy({ tenantId, id });
  }

  /**
   * Inserts the request unless the tenant keeps `cap` pending ones at `now`: one statement
   * (`insert_presentation_request_within_cap`, migrations/1795800610000-presentation-request-within-cap.ts),
   * under the tenant's request-count lock until the caller's transaction (or its own) ends. False when full.
   */
  async insertWithinCap(
    request: NewPresentationRequest,
    cap: number,
    now: Date,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<boolean> {
    const [row] = await manager.query<[{ inserted: boolean | null }]>(
      'SELECT insert_presentation_request_within_cap($1, $2, $3) AS inserted',
      [recordJson(this.dataSource.getMetadata(PresentationRequestEntity), request), cap, now],
    );
    return row.inserted === true;
  }

  /** Deletes the tenant's request, whatever its state; false when there was none. */
  async delete(tenantId: string, id: string): Promise<boolean> {
    const result = await this.repo().delete({ tenantId, id });
    return result.affected === 1;
  }

  /**
   * Marks up to `limit` pending requests past their time as expired; rows another instance is ending
   * are skipped. Answers how many it ended.
   */
  async expireDue(now: Date, limit: number): Promise<number> {
    const [rows] = await this.dataSource.query<[unknown[], number]>(
      `UPDATE oid4vp_request SET status = 'expired', ended_at = expires_at
        WHERE id IN (
          SELECT id FROM oid4vp_request
           WHERE status = 'pending' AND expires_at <= $1
           ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED)
        RETURNING id`,
      [now, limit],
    );
    return rows.length;
  }

  /**
   * Erases the disclosed claims of up to `limit` requests that ended before `endedBefore`, keeping the
   * outcome; rows another instance is erasing are skipped. Answers how many it erased.
   */
  async eraseClaims(endedBefore: Date, now: Date, limit: number): Promise<number> {
    const [rows] = await this.dataSource.query<[unknown[], number]>(
      `UPDATE oid4vp_request
          SET claims_sealed = NULL, claims_master_key_id = NULL, claims_erased_at = $2
        WHERE id IN (
          SELECT id FROM oid4vp_request
           WHERE claims_sealed IS NOT NULL AND ended_at <= $1
           ORDER BY ended_at LIMIT $3 FOR UPDATE SKIP LOCKED)
        RETURNING id`,
      [endedBefore, now, limit],
    );
    return rows.length;
  }
}
