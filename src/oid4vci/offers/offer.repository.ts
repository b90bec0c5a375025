import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { type DataSource, type EntityManager } from 'typeorm';
import { recordJson } from '../../database/record-json.js';
import { OfferEntity } from './offer.entity.js';

/** A new offer as the service builds it; the times are the database's. */
export type NewOffer = Pick<
  OfferEntity,
  | 'id'
  | 'tenantId'
  | 'configurationId'
  | 'configuration'
  | 'claimsSealed'
  | 'claimsMasterKeyId'
  | 'byValue'
  | 'secretsSealed'
  | 'masterKeyId'
  | 'preAuthorizedCodeHash'
  | 'referenceHash'
  | 'txCode'
  | 'txCodeHash'
  | 'grantType'
  | 'subject'
  | 'expiresAt'
>;

/** An open offer past its time, as the expiry job ends it. */
export interface ExpiredOffer {
  id: string;
  tenantId: string;
  configurationId: string;
}

/** An offer whose claims are still in the clear, as the sealing step reads it. */
export interface UnsealedClaims {
  id: string;
  claims: Record<string, unknown>;
}

const openStatuses = `('offered', 'accepted')`;

/**
 * The tenants' OpenID4VCI credential offers (oid4vci_offer) for the offers API and its jobs; the wallet
 * endpoints' statements over the same table are `OfferGrantsService`'s, beside it (docs/oid4vci.md).
 */
@Injectable()
export class OfferRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** One page of the tenant's offers by creation time (then id) and how many it has in all. */
  page(
    tenantId: string,
    request: { direction: 'ASC' | 'DESC'; offset: number; size: number },
  ): Promise<[OfferEntity[], number]> {
    return this.rows().findAndCount({
      where: { tenantId },
      order: { createdAt: request.direction, id: request.direction },
      skip: request.offset,
      take: request.size,
    });
  }

  findById(tenantId: string, id: string): Promise<OfferEntity | null> {
    return this.rows().findOneBy({ tenantId, id });
  }

  /** The tenant's offer whose reference hashes to this, whatever its state. */
  findByReference(tenantId: string, referenceHash: Buffer): Promise<OfferEntity | null> {
    return this.rows().findOneBy({ tenantId, referenceHash });
  }

  /**
   * Holds the tenant's open-offer count until the caller's transaction ends: concurrent creates count
   * and insert one after the other (docs/architecture.md, Per-tenant caps).
   */
  /**
   * Inserts the offer unless the tenant keeps `cap` open ones at `now`: one statement
   * (`insert_offer_within_cap`, migrations/1795800600000-offer-within-cap.ts), under the tenant's
   * offer-count lock until the caller's transaction (or the statement's own) ends. False when full.
   */
  async insertWithinCap(
    offer: NewOffer,
    cap: number,
    now: Date,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<boolean> {
    const [row] = await manager.query<[{ inserted: boolean | null }]>(
      'SELECT insert_offer_within_cap($1, $2, $3) AS inserted',
      [recordJson(this.dataSource.getMetadata(OfferEntity), offer), cap, now],
    );
    return row.inserted === true;
  }

  /** Withdraws the offer if it is open at `now`, dropping its claims; null when it is not. */
  async withdraw(tenantId: string, id: string, now: Date): Promise<OfferEntity | null> {
    // The row by its id alone, tested once locked (docs/performance.md, "Keyed statements").
    const [rows] = await this.dataSource.query<[{ id: string }[], number]>(
      `UPDATE oid4vci_offer
          SET status = 'withdrawn', claims_sealed = NULL, claims_master_key_id = NULL,
              claims_unsealed = NULL, updated_at = now()
        WHERE id = $2
          AND (SELECT o.tenant_id = $1 AND o.status IN ${openStatuses} AND o.expires_at > $3
                 FROM oid4vci_offer o WHERE o.id = $2 FOR NO KEY UPDATE)
        RETURNING id`,
      [tenantId, id, now],
    );
    return rows.length > 0 ? this.findById(tenantId, id) : null;
  }

  /**
   * Marks up to `limit` open offers past their time as expired and drops their claims, in the caller's
   * transaction; rows another instance is ending are skipped. Answers the offers it ended.
   */
  async expireDue(manager: EntityManager, now: Date, limit: number): Promise<ExpiredOffer[]> {
    const [rows] = await manager.query<[ExpiredOffer[], number]>(
      `UPDATE oid4vci_offer
          SET status = 'expired', claims_sealed = NULL, claims_master_key_id = NULL,
              claims_unsealed = NULL, updated_at = now()
        WHERE id IN (
          SELECT id FROM oid4vci_offer
           WHERE status IN ${openStatuses} AND expires_at <= $1
           ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED)
        RETURNING id, tenant_id AS "tenantId", configuration_id AS "configurationId"`,
      [now, limit],
    );
    return rows;
  }

  /**
   * Up to `limit` offers whose claims are still in the clear (made before claims were sealed), locked
   * in the caller's transaction; rows another instance is sealing are skipped.
   */
  unsealedClaims(manager: EntityManager, limit: number): Promise<UnsealedClaims[]> {
    return manager.query<UnsealedClaims[]>(
      `SELECT id, claims_unsealed AS claims FROM oid4vci_offer
        WHERE claims_unsealed IS NOT NULL
        ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED`,
      [limit],
    );
  }

  /** Stores the sealed claims of these offers and empties their clear ones, in one statement. */
  async storeSealedClaims(
    manager: EntityManager,
    sealed: { ids: string[]; boxes: Buffer[]; masterKeyId: string },
  ): Promise<void> {
    await manager.query(
      `UPDATE oid4vci_offer AS offer
          SET claims_sealed = sealed.box, claims_master_key_id = $3, claims_unsealed = NULL
         FROM unnest($1::uuid[], $2::bytea[]) AS sealed(id, box)
        WHERE offer.id = sealed.id AND offer.claims_unsealed IS NOT NULL`,
      [sealed.ids, sealed.boxes, sealed.masterKeyId],
    );
  }

  private rows() {
    return this.dataSource.getRepository(OfferEntity);
  }
}
