import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { retriedOnStalePlan } from '../database/stale-plan-retry.js';
import { DidEntity } from './did.entity.js';

/** A DID row to write: the private key already sealed by the KeyVault. */
export type NewDidRecord = Pick<
  DidEntity,
  'did' | 'tenantId' | 'method' | 'keyType' | 'publicKey' | 'privateKeySealed' | 'masterKeyId'
>;

/** What GET /did and the DID document read. */
export type PublicDidRecord = Pick<DidEntity, 'did' | 'publicKey' | 'createdAt'>;

/** What signing reads: the sealed box and its key id together. */
export type SigningDidRecord = Pick<
  DidEntity,
  'did' | 'publicKey' | 'privateKeySealed' | 'masterKeyId'
>;

/** GET /did's one read (tenant_id is unique): the service's hot path. */
const didOfTenantSql = 'SELECT did, public_key, created_at FROM tenant_did WHERE tenant_id = $1';

/** The issuing path's read: a plain query, TypeORM's find machinery costs more than the read. */
const signingKeyOfTenantSql = `SELECT did, public_key AS "publicKey", private_key_sealed AS "privateKeySealed",
        master_key_id AS "masterKeyId"
   FROM tenant_did WHERE tenant_id = $1`;

/** The DIDs of several tenants in one indexed read (tenant_id is unique). */
const didsOfTenantsSql = 'SELECT tenant_id, did FROM tenant_did WHERE tenant_id = ANY($1)';

/**
 * The only reader and writer of tenant_did (the KeyVault's re-sealing aside, secrets/). For another
 * feature's statement it publishes `tenant_did_key_of(tenant)`, the row `signingKeyOf` reads
 * (migrations/1795800630000-tenant-did-key-of.ts), for `DidService.signerOf` to sign with.
 */
@Injectable()
export class DidRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Writes the tenant's DID in the caller's transaction. */
  async insert(record: NewDidRecord, manager: EntityManager): Promise<void> {
    await manager.insert(DidEntity, record);
  }

  /** The tenant's DID, read in the caller's transaction. */
  async didOf(tenantId: string, manager: EntityManager): Promise<string | undefined> {
    const entity = await manager.findOne(DidEntity, {
      select: { did: true },
      where: { tenantId },
    });
    return entity?.did;
  }

  /** The DIDs of the given tenants, by tenant id; a tenant without a DID has no entry. */
  async didsOf(tenantIds: readonly string[]): Promise<Map<string, string>> {
    const rows = await this.dataSource.query<{ tenant_id: string; did: string }[]>(
      didsOfTenantsSql,
      [tenantIds],
    );
    return new Map(rows.map((row) => [row.tenant_id, row.did]));
  }

  /**
   * One indexed query, not TypeORM's find machinery: the hot path (docs/performance.md); a migration of
   * a column it reads does not interrupt it.
   */
  async publicDidOf(tenantId: string): Promise<PublicDidRecord | undefined> {
    const [row] = await retriedOnStalePlan(this.dataSource, 'GET /did', () =>
      this.dataSource.query<{ did: string; public_key: Buffer; created_at: Date }[]>(
        didOfTenantSql,
        [tenantId],
      ),
    );
    if (row === undefined) return undefined;
    return { did: row.did, publicKey: row.public_key, createdAt: row.created_at };
  }

  async signingKeyOf(
    tenantId: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<SigningDidRecord | undefined> {
    const [row] = await manager.query<SigningDidRecord[]>(signingKeyOfTenantSql, [tenantId]);
    return row;
  }
}
