import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { type DataSource } from 'typeorm';

/** The `c_nonce` values given out (oid4vci_nonce), by their hash. */
@Injectable()
export class NonceRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Stores a nonce of the tenant, in one statement; an unknown tenant is refused by the table's foreign
   * key (`oid4vci_nonce_tenant_id_fkey`), which the service answers 404.
   */
  async insert(tenantId: string, nonceHash: Buffer, expiresAt: Date): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO oid4vci_nonce (nonce_hash, tenant_id, expires_at) VALUES ($1, $2, $3)`,
      [nonceHash, tenantId, expiresAt],
    );
  }

  /** Deletes up to `limit` expired nonces; answers how many. */
  async deleteExpiredBatch(now: Date, limit: number): Promise<number> {
    const [, count] = await this.dataSource.query<[unknown, number]>(
      `DELETE FROM oid4vci_nonce WHERE nonce_hash IN (
         SELECT nonce_hash FROM oid4vci_nonce WHERE expires_at <= $1
         LIMIT $2 FOR UPDATE SKIP LOCKED)`,
      [now, limit],
    );
    return count;
  }
}
