import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { type DataSource, type EntityManager } from 'typeorm';
import { type SortedPageRequest } from '../common/page-query.js';
import { EntityRead } from '../database/entity-read.js';
import { lockTenantCount } from '../database/tenant-count-lock.js';
import { TrustedIssuerEntity } from './trusted-issuer.entity.js';

/** A new entry; `createdAt` is the database's. */
export type NewTrustedIssuer = Pick<
  TrustedIssuerEntity,
  'id' | 'tenantId' | 'issuer' | 'description'
>;

/** A page of a tenant's list: sorted by one column, then by id, the same way. */
export type TrustedIssuerPageRequest = SortedPageRequest<'issuer' | 'createdAt'>;

/**
 * The tenants' trusted issuers lists (trusted_issuer). Published for other folders' reads
 * (migration TenantTrustViews1795800670000): the view `tenant_trusted_issuer` (tenant_id, issuer).
 */
@Injectable()
export class TrustedIssuerRepository {
  /** Every presentation reads the tenant's list: a statement written once. */
  private readonly issuersRead: EntityRead<TrustedIssuerEntity, 'tenantId'>;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    this.issuersRead = new EntityRead(dataSource, TrustedIssuerEntity, ['tenantId'], ['issuer']);
  }

  /** One page of the tenant's entries and how many it has in all. */
  page(
    tenantId: string,
    request: TrustedIssuerPageRequest,
  ): Promise<[TrustedIssuerEntity[], number]> {
    return this.entries().findAndCount({
      where: { tenantId },
      order: { [request.by]: request.direction, id: request.direction },
      skip: request.offset,
      take: request.size,
    });
  }

  findById(tenantId: string, id: string): Promise<TrustedIssuerEntity | null> {
    return this.entries().findOneBy({ id, tenantId });
  }

  /** Whether the tenant lists the issuer, in the caller's transaction. */
  exists(manager: EntityManager, tenantId: string, issuer: string): Promise<boolean> {
    return manager.getRepository(TrustedIssuerEntity).existsBy({ tenantId, issuer });
  }

  /**
   * Holds the tenant's entry count until the caller's transaction ends: concurrent adds count and
   * insert one after the other (docs/architecture.md, Per-tenant caps).
   */
  lockCount(manager: EntityManager, tenantId: string): Promise<void> {
    return lockTenantCount(manager, 'trusted_issuer', tenantId);
  }

  /** How many entries the tenant has, in the caller's transaction. */
  count(manager: EntityManager, tenantId: string): Promise<number> {
    return manager.getRepository(TrustedIssuerEntity).countBy({ tenantId });
  }

  /** Inserts the entry in the caller's transaction, in one statement; answers it as stored. */
  async insert(manager: EntityManager, entry: NewTrustedIssuer): Promise<TrustedIssuerEntity> {
    const { generatedMaps } = await manager.getRepository(TrustedIssuerEntity).insert(entry);
    return { ...entry, ...(generatedMaps[0] as Pick<TrustedIssuerEntity, 'createdAt'>) };
  }

  /** True when there was such an entry. */
  async delete(tenantId: string, id: string): Promise<boolean> {
    const { affected } = await this.entries().delete({ id, tenantId });
    return (affected ?? 0) > 0;
  }

  /** The issuer ids of every entry of the tenant (at most the cap: one short query). */
  async issuersOf(tenantId: string): Promise<string[]> {
    const rows = await this.issuersRead.all({ tenantId });
    return rows.map((row) => row.issuer);
  }

  private entries() {
    return this.dataSource.getRepository(TrustedIssuerEntity);
  }
}
