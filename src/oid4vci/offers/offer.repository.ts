import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { type DataSource, type EntityManager } from 'typeorm';
import { OfferEntity } from './offer.entity.js';

/** A new offer as the service builds it; the times are the database's. */
export type NewOffer = Pick<
  OfferEntity,
  | 'id'
  | 'tenantId'
  | 'configurationId'
  | 'configuration'
  | 'claims'
  | 'byValue'
  | 'secretsSealed'
  | 'masterKeyId'
  | 'preAuthorizedCodeHash'
  | 'referenceHash'
  | 'txCode'
  | 'txCodeHash'
  | 'expiresAt'
>;

/** An open offer past its time, as the expiry job ends it. */
export interface ExpiredOffer {
  id: string;
  tenantId: string;
  configurationId: string;
}

const openStatuses = `('offered', 'accepted')`;

/** The tenants' OpenID4VCI credential offers (oid4vci_offer): the only reader and writer of the table. */
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

  /** How many offers of the tenant are open at `now`, in the caller's transaction. */
  async countOpen(manager: EntityManager, tenantId: string, now: Date): Promise<number> {
    const [{ count }] = await manager.query<[{ count: number }]>(
      `SELECT count(*)::int AS count FROM oid4vci_offer
        WHERE tenant_id = $1 AND status IN ${openStatuses} AND expires_at > $2`,
      [tenantId, now],
    );
    return count;
  }

  /** Inserts in the caller's transaction; answers the row as stored. */
  insert(manager: EntityManager, offer: NewOffer): Promise<OfferEntity> {
    return manager
      .getRepository(OfferEntity)
      .save({ ...offer, status: 'offered' as const, credentialIds: [] });
  }

  /** Withdraws the offer if it is open at `now`, dropping its claims; null when it is not. */
  async withdraw(tenantId: string, id: string, now: Date): Promise<OfferEntity | null> {
    const [rows] = await this.dataSource.query<[{ id: string }[], number]>(
      `UPDATE oid4vci_offer SET status = 'withdrawn', claims = NULL, updated_at = now()
        WHERE tenant_id = $1 AND id = $2 AND status IN ${openStatuses} AND expires_at > $3
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
      `UPDATE oid4vci_offer SET status = 'expired', claims = NULL, updated_at = now()
        WHERE id IN (
          SELECT id FROM oid4vci_offer
           WHERE status IN ${openStatuses} AND expires_at <= $1
           ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED)
        RETURNING id, tenant_id AS "tenantId", configuration_id AS "configurationId"`,
      [now, limit],
    );
    return rows;
  }

  private rows() {
    return this.dataSource.getRepository(OfferEntity);
  }
}
