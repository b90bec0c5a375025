import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { CertificateAuthorityEntity } from './certificate-authority.entity.js';

/** An authority row to write: the private key already sealed by the KeyVault, its row id as owner. */
export type NewAuthorityRecord = Omit<CertificateAuthorityEntity, 'createdAt' | 'current'>;

/** One statement: two instances making the development authority at once keep one. */
const insertIfNoneSql = `INSERT INTO certificate_authority
        (id, source, fingerprint, chain, private_key_sealed, master_key_id, current)
 VALUES ($1, $2, $3, $4::jsonb, $5, $6, true)
 ON CONFLICT DO NOTHING`;

/** The configured authority becomes the current one; the same files imported again change nothing. */
const makeCurrentSql = `INSERT INTO certificate_authority
        (id, source, fingerprint, chain, private_key_sealed, master_key_id, current)
 VALUES ($1, $2, $3, $4::jsonb, $5, $6, true)
 ON CONFLICT (fingerprint) DO UPDATE SET current = true`;

const lockSql = `SELECT pg_advisory_xact_lock(hashtext('certificate_authority'))`;
const retireOthersSql = `UPDATE certificate_authority SET current = false
  WHERE current AND fingerprint <> $1`;

/** The only reader and writer of certificate_authority (the KeyVault's re-sealing aside, secrets/). */
@Injectable()
export class CertificateAuthorityRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The authority that issues now, if any. */
  async current(): Promise<CertificateAuthorityEntity | undefined> {
    const row = await this.dataSource
      .getRepository(CertificateAuthorityEntity)
      .findOneBy({ current: true });
    return row ?? undefined;
  }

  /** An authority, current or earlier, by its id. */
  async byId(id: string): Promise<CertificateAuthorityEntity | undefined> {
    const row = await this.dataSource.getRepository(CertificateAuthorityEntity).findOneBy({ id });
    return row ?? undefined;
  }

  /** Writes the authority unless one is current already. */
  async insertIfNone(record: NewAuthorityRecord): Promise<void> {
    await this.dataSource.query(insertIfNoneSql, parametersOf(record));
  }

  /** Makes the authority current in one transaction; instances starting together take turns. */
  async makeCurrent(record: NewAuthorityRecord): Promise<void> {
    await this.dataSource.transaction(async (manager: EntityManager) => {
      await manager.query(lockSql);
      await manager.query(retireOthersSql, [record.fingerprint]);
      await manager.query(makeCurrentSql, parametersOf(record));
    });
  }
}

function parametersOf(record: NewAuthorityRecord): unknown[] {
  return [
    record.id,
    record.source,
    record.fingerprint,
    JSON.stringify(record.chain),
    record.privateKeySealed,
    record.masterKeyId,
  ];
}
