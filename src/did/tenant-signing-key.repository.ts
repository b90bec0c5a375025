import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { violates } from '../database/constraint-violation.js';
import { TenantSigningKeyEntity } from './tenant-signing-key.entity.js';

/** A key row to write: the private key already sealed by the KeyVault. */
export type NewSigningKeyRecord = Pick<
  TenantSigningKeyEntity,
  'id' | 'tenantId' | 'kid' | 'algorithm' | 'publicJwk' | 'privateKeySealed' | 'masterKeyId'
>;

/** What signing reads: the sealed box and its key id together. */
export type SigningKeyRecord = Pick<
  TenantSigningKeyEntity,
  'kid' | 'algorithm' | 'publicJwk' | 'privateKeySealed' | 'masterKeyId'
>;

/** What a published key set reads: never the sealed box. */
export type PublicSigningKeyRecord = Pick<
  TenantSigningKeyEntity,
  'kid' | 'algorithm' | 'publicJwk'
>;

/** What a first use's insert found: its row written, a row already there, or no such tenant. */
export type InsertOutcome = 'inserted' | 'exists' | 'no-tenant';

/** One statement: a concurrent first use for the same tenant and algorithm leaves one row. */
const insertIfAbsentSql = `INSERT INTO tenant_signing_key
        (id, tenant_id, kid, algorithm, public_jwk, private_key_sealed, master_key_id)
 VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7)
 ON CONFLICT (tenant_id, algorithm) DO NOTHING
 RETURNING id`;

const keyOfTenantSql = `SELECT kid, algorithm, public_jwk AS "publicJwk",
        private_key_sealed AS "privateKeySealed", master_key_id AS "masterKeyId"
   FROM tenant_signing_key WHERE tenant_id = $1 AND algorithm = $2`;

const publicKeysOfTenantSql = `SELECT kid, algorithm, public_jwk AS "publicJwk"
   FROM tenant_signing_key WHERE tenant_id = $1 ORDER BY created_at, id`;

/**
 * The only reader and writer of tenant_signing_key (the KeyVault's re-sealing aside, secrets/). For
 * another feature's statement it publishes `tenant_signing_key_of(tenant, algorithm)`, the row `keyOf`
 * reads (migrations/1795800100000-credential-request-statements.ts), for `TenantKeys` to sign with.
 */
@Injectable()
export class TenantSigningKeyRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Writes the tenant's key in the caller's transaction (the tenant's creation). */
  async insert(record: NewSigningKeyRecord, manager: EntityManager): Promise<void> {
    await manager.insert(TenantSigningKeyEntity, record);
  }

  /** Writes the key unless the tenant already has one of this algorithm. */
  async insertIfAbsent(
    record: NewSigningKeyRecord,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<InsertOutcome> {
    try {
      const inserted = await manager.query<{ id: string }[]>(insertIfAbsentSql, [
        record.id,
        record.tenantId,
        record.kid,
        record.algorithm,
        JSON.stringify(record.publicJwk),
        record.privateKeySealed,
        record.masterKeyId,
      ]);
      return inserted.length === 1 ? 'inserted' : 'exists';
    } catch (error) {
      if (violates(error, 'foreign-key', 'tenant_signing_key_tenant_id_fkey')) return 'no-tenant';
      throw error;
    }
  }

  async keyOf(
    tenantId: string,
    algorithm: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<SigningKeyRecord | undefined> {
    const [row] = await manager.query<SigningKeyRecord[]>(keyOfTenantSql, [tenantId, algorithm]);
    return row;
  }

  /** The tenant's public keys, oldest first. */
  async publicKeysOf(tenantId: string): Promise<PublicSigningKeyRecord[]> {
    return this.dataSource.query<PublicSigningKeyRecord[]>(publicKeysOfTenantSql, [tenantId]);
  }
}
