import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { type DataSource, type EntityManager } from 'typeorm';
import { type SortedPageRequest } from '../common/page-query.js';
import { lockTenantCount } from '../database/tenant-count-lock.js';
import {
  WalletAttestationPolicyEntity,
  type WalletAttestationSetting,
} from './wallet-attestation-policy.entity.js';
import { WalletProviderEntity } from './wallet-provider.entity.js';

/** A new wallet provider; `createdAt` is the database's. */
export type NewWalletProvider = Omit<WalletProviderEntity, 'createdAt' | 'tenant'>;

export type WalletProviderPageRequest = SortedPageRequest<'subject' | 'notAfter' | 'createdAt'>;

/** The tenants' wallet providers (wallet_provider). */
@Injectable()
export class WalletProviderRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** One page of the tenant's providers and how many it has in all. */
  page(
    tenantId: string,
    request: WalletProviderPageRequest,
  ): Promise<[WalletProviderEntity[], number]> {
    return this.providers().findAndCount({
      where: { tenantId },
      order: { [request.by]: request.direction, id: request.direction },
      skip: request.offset,
      take: request.size,
    });
  }

  findById(tenantId: string, id: string): Promise<WalletProviderEntity | null> {
    return this.providers().findOneBy({ id, tenantId });
  }

  /** Whether the tenant has this certificate as an provider, in the caller's transaction. */
  exists(manager: EntityManager, tenantId: string, fingerprint: string): Promise<boolean> {
    return manager.getRepository(WalletProviderEntity).existsBy({ tenantId, fingerprint });
  }

  /** Holds the tenant's provider count until the caller's transaction ends (docs/architecture.md). */
  lockCount(manager: EntityManager, tenantId: string): Promise<void> {
    return lockTenantCount(manager, 'wallet_provider', tenantId);
  }

  count(manager: EntityManager, tenantId: string): Promise<number> {
    return manager.getRepository(WalletProviderEntity).countBy({ tenantId });
  }

  /** Inserts the provider in the caller's transaction, in one statement; answers it as stored. */
  async insert(manager: EntityManager, provider: NewWalletProvider): Promise<WalletProviderEntity> {
    const { generatedMaps } = await manager.getRepository(WalletProviderEntity).insert(provider);
    return { ...provider, ...(generatedMaps[0] as Pick<WalletProviderEntity, 'createdAt'>) };
  }

  /** True when there was such an provider. */
  async delete(tenantId: string, id: string): Promise<boolean> {
    const { affected } = await this.providers().delete({ id, tenantId });
    return (affected ?? 0) > 0;
  }

  /** Every provider's fingerprint and PEM (at most the cap: one short query). */
  certificatesOf(
    tenantId: string,
  ): Promise<Pick<WalletProviderEntity, 'fingerprint' | 'certificate'>[]> {
    return this.providers().find({
      select: { fingerprint: true, certificate: true },
      where: { tenantId },
    });
  }

  /** The tenant's explicit attestation setting (null: none) and whether it lists a provider, at once. */
  async policyOf(
    tenantId: string,
  ): Promise<{ setting: WalletAttestationSetting | null; listed: boolean }> {
    const [row] = await this.dataSource.query<
      { setting: WalletAttestationSetting | null; listed: boolean }[]
    >(
      `SELECT (SELECT wallet_attestation FROM wallet_attestation_policy WHERE tenant_id = $1)
                AS setting,
              EXISTS (SELECT FROM wallet_provider WHERE tenant_id = $1) AS listed`,
      [tenantId],
    );
    return row;
  }

  /** Sets the tenant's choice, or with null removes it (the default applies again). */
  async setPolicy(tenantId: string, setting: WalletAttestationSetting | null): Promise<void> {
    const policies = this.dataSource.getRepository(WalletAttestationPolicyEntity);
    if (setting === null) await policies.delete({ tenantId });
    else await policies.upsert({ tenantId, walletAttestation: setting }, ['tenantId']);
  }

  private providers() {
    return this.dataSource.getRepository(WalletProviderEntity);
  }
}
