import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { type DataSource, type EntityManager } from 'typeorm';
import { EntityRead } from '../database/entity-read.js';
import { lockTenantCount } from '../database/tenant-count-lock.js';
import { CredentialConfigurationEntity } from './credential-configuration.entity.js';
import { type ConfigurationDefinition } from './credential-configuration.rules.js';

/** A new configuration; the times are the database's. */
export type NewCredentialConfiguration = ConfigurationDefinition &
  Pick<CredentialConfigurationEntity, 'tenantId' | 'id'>;

/** A page of a tenant's configurations: sorted by one column, then by id, the same way. */
export interface ConfigurationPageRequest {
  by: 'id' | 'createdAt';
  direction: 'ASC' | 'DESC';
  offset: number;
  size: number;
}

/** The tenants' OpenID4VCI credential configurations (oid4vci_credential_configuration). */
@Injectable()
export class CredentialConfigurationRepository {
  /** Every credential request reads its configuration: a statement written once. */
  private readonly byId: EntityRead<CredentialConfigurationEntity, 'tenantId' | 'id'>;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {
    this.byId = new EntityRead(dataSource, CredentialConfigurationEntity, ['tenantId', 'id']);
  }

  /** One page of the tenant's configurations and how many it has in all. */
  page(
    tenantId: string,
    request: ConfigurationPageRequest,
  ): Promise<[CredentialConfigurationEntity[], number]> {
    return this.rows().findAndCount({
      where: { tenantId },
      order: { [request.by]: request.direction, id: request.direction },
      skip: request.offset,
      take: request.size,
    });
  }

  findById(tenantId: string, id: string): Promise<CredentialConfigurationEntity | null> {
    return this.byId.one({ tenantId, id });
  }

  /** Every configuration of the tenant, oldest first (at most the cap: one short query). */
  allOf(tenantId: string): Promise<CredentialConfigurationEntity[]> {
    return this.rows().find({ where: { tenantId }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  /** Whether the tenant has the id, in the caller's transaction. */
  exists(manager: EntityManager, tenantId: string, id: string): Promise<boolean> {
    return manager.getRepository(CredentialConfigurationEntity).existsBy({ tenantId, id });
  }

  /**
   * Holds the tenant's configuration count until the caller's transaction ends: concurrent creates
   * count and insert one after the other (docs/architecture.md, Per-tenant caps).
   */
  lockCount(manager: EntityManager, tenantId: string): Promise<void> {
    return lockTenantCount(manager, 'oid4vci_credential_configuration', tenantId);
  }

  /** How many configurations the tenant has, in the caller's transaction. */
  count(manager: EntityManager, tenantId: string): Promise<number> {
    return manager.getRepository(CredentialConfigurationEntity).countBy({ tenantId });
  }

  /** Inserts in the caller's transaction, in one statement; answers the row as stored. */
  async insert(
    manager: EntityManager,
    configuration: NewCredentialConfiguration,
  ): Promise<CredentialConfigurationEntity> {
    const rows = manager.getRepository(CredentialConfigurationEntity);
    const { generatedMaps } = await rows.insert(configuration);
    return rows.create({ ...configuration, ...generatedMaps[0] });
  }

  /** Replaces the definition in the caller's transaction; null when there is no such configuration. */
  async replace(
    manager: EntityManager,
    tenantId: string,
    id: string,
    definition: ConfigurationDefinition,
  ): Promise<CredentialConfigurationEntity | null> {
    const rows = manager.getRepository(CredentialConfigurationEntity);
    const { affected } = await rows.update({ tenantId, id }, definition);
    return (affected ?? 0) > 0 ? rows.findOneBy({ tenantId, id }) : null;
  }

  /** True when there was such a configuration. */
  async delete(tenantId: string, id: string): Promise<boolean> {
    const { affected } = await this.rows().delete({ tenantId, id });
    return (affected ?? 0) > 0;
  }

  private rows() {
    return this.dataSource.getRepository(CredentialConfigurationEntity);
  }
}
