import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { type DataSource, type EntityManager } from 'typeorm';
import { type SortedPageRequest } from '../common/page-query.js';
import { EntityRead } from '../database/entity-read.js';
import { lockTenantCount } from '../database/tenant-count-lock.js';
import { TrustAnchorEntity } from './trust-anchor.entity.js';

/** A new anchor; `createdAt` is the database's. */
export type NewTrustAnchor = Omit<TrustAnchorEntity, 'createdAt' | 'tenant'>;

export type TrustAnchorPageRequest = SortedPageRequest<'subject' | 'notAfter' | 'createdAt'>;

/**
 * The tenants' trust anchors (trust_anchor). Published for other folders' reads (migration
 * TenantTrustViews1795800670000): the view `tenant_trust_anchor` (tenant_id, fingerprint,
 * certificate), each anchor's PEM.
 */
@Injectable()
export class TrustAnchorRepository {
  /** Every x5c verification reads the tenant's anchors: a statement written once. */
  private readonly certificatesRead: EntityRead<TrustAnchorEntity, 'tenantId'>;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    this.certificatesRead = new EntityRead(
      dataSource,
      TrustAnchorEntity,
      ['tenantId'],
      ['fingerprint', 'certificate'],
    );
  }

  /** One page of the tenant's anchors and how many it has in all. */
  page(tenantId: string, request: TrustAnchorPageRequest): Promise<[TrustAnchorEntity[], number]> {
    return this.anchors().findAndCount({
      where: { tenantId },
      order: { [request.by]: request.direction, id: request.direction },
      skip: request.offset,
      take: request.size,
    });
  }

  findById(tenantId: string, id: string): Promise<TrustAnchorEntity | null> {
    return this.anchors().findOneBy({ id, tenantId });
  }

  /** Whether the tenant has this certificate as an anchor, in the caller's transaction. */
  exists(manager: EntityManager, tenantId: string, fingerprint: string): Promise<boolean> {
    return manager.getRepository(TrustAnchorEntity).existsBy({ tenantId, fingerprint });
  }

  /** Holds the tenant's anchor count until the caller's transaction ends (docs/architecture.md). */
  lockCount(manager: EntityManager, tenantId: string): Promise<void> {
    return lockTenantCount(manager, 'trust_anchor', tenantId);
  }

  count(manager: EntityManager, tenantId: string): Promise<number> {
    return manager.getRepository(TrustAnchorEntity).countBy({ tenantId });
  }

  /** Inserts the anchor in the caller's transaction, in one statement; answers it as stored. */
  async insert(manager: EntityManager, anchor: NewTrustAnchor): Promise<TrustAnchorEntity> {
    const { generatedMaps } = await manager.getRepository(TrustAnchorEntity).insert(anchor);
    return { ...anchor, ...(generatedMaps[0] as Pick<TrustAnchorEntity, 'createdAt'>) };
  }

  /** True when there was such an anchor. */
  async delete(tenantId: string, id: string): Promise<boolean> {
    const { affected } = await this.anchors().delete({ id, tenantId });
    return (affected ?? 0) > 0;
  }

  /** Every anchor's fingerprint and PEM (at most the cap: one short query). */
  certificatesOf(
    tenantId: string,
  ): Promise<Pick<TrustAnchorEntity, 'fingerprint' | 'certificate'>[]> {
    return this.certificatesRead.all({ tenantId });
  }

  private anchors() {
    return this.dataSource.getRepository(TrustAnchorEntity);
  }
}
