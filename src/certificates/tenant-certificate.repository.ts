import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { rowsOf } from '../database/rows-of.js';
import { lockTenantCount } from '../database/tenant-count-lock.js';
import {
  TenantCertificateEntity,
  type CertificatePurpose,
  type CertificateStatus,
} from './tenant-certificate.entity.js';

/** A certificate row to write; `createdAt` is the database's. */
export type NewTenantCertificate = Omit<
  TenantCertificateEntity,
  'createdAt' | 'tenant' | 'expiringNotifiedAt'
>;

/** A certificate that left the active state, for its event. */
export interface RetiredCertificate {
  id: string;
  status: CertificateStatus;
  notAfter: Date;
}

/*
 * The same read is published for another feature's statement as `active_certificate_of(tenant)`
 * (migrations/1795800100000-credential-request-statements.ts): the credential endpoint reads it with
 * the token's offer, and `CertificatesService.activeChain` takes what it read.
 */
const activeX5cSql = `SELECT x5c, not_before AS "notBefore", not_after AS "notAfter"
   FROM tenant_certificate WHERE tenant_id = $1 AND status = 'active' AND purpose = $2`;

/** The one past its notAfter is expired, any other superseded (docs/certificates.md). */
const retireActiveSql = `UPDATE tenant_certificate
    SET status = CASE WHEN not_after <= $2 THEN 'expired' ELSE 'superseded' END
  WHERE tenant_id = $1 AND status = 'active' AND purpose = $3
  RETURNING id, status, not_after AS "notAfter"`;

/** An active certificate the expiry job ended or announced, for its event. */
export interface DueCertificate {
  id: string;
  tenantId: string;
  notAfter: Date;
}

/** Active ones expiring before the horizon, not yet announced; instances skip each other's rows. */
const announceExpiringSql = `UPDATE tenant_certificate SET expiring_notified_at = $1
  WHERE id IN (SELECT id FROM tenant_certificate
                WHERE status = 'active' AND expiring_notified_at IS NULL
                  AND not_after > $1 AND not_after <= $2
                ORDER BY not_after LIMIT $3 FOR UPDATE SKIP LOCKED)
  RETURNING id, tenant_id AS "tenantId", not_after AS "notAfter"`;

/** Active ones past their notAfter become expired; instances skip each other's rows. */
const expireDueSql = `UPDATE tenant_certificate SET status = 'expired'
  WHERE id IN (SELECT id FROM tenant_certificate
                WHERE status = 'active' AND not_after <= $1
                ORDER BY not_after LIMIT $2 FOR UPDATE SKIP LOCKED)
  RETURNING id, tenant_id AS "tenantId", not_after AS "notAfter"`;

/** The only reader and writer of tenant_certificate. */
@Injectable()
export class TenantCertificateRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The active chain of a purpose: its x5c and validity, in one short read (the issue paths call it). */
  async activeOf(
    tenantId: string,
    purpose: CertificatePurpose,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<Pick<TenantCertificateEntity, 'x5c' | 'notBefore' | 'notAfter'> | undefined> {
    const [row] = await manager.query<
      Pick<TenantCertificateEntity, 'x5c' | 'notBefore' | 'notAfter'>[]
    >(activeX5cSql, [tenantId, purpose]);
    return row;
  }

  /**
   * Holds the tenant's certificate changes until the caller's transaction ends: a change reads the
   * active one, retires it and inserts its successor while no other change runs for the tenant.
   */
  lock(manager: EntityManager, tenantId: string): Promise<void> {
    return lockTenantCount(manager, 'tenant_certificate', tenantId);
  }

  /** Ends the tenant's active certificate of a purpose, in the caller's transaction; answers what it ended. */
  async retireActive(
    manager: EntityManager,
    tenantId: string,
    now: Date,
    purpose: CertificatePurpose,
  ): Promise<RetiredCertificate[]> {
    return rowsOf<RetiredCertificate>(
      await manager.query(retireActiveSql, [tenantId, now, purpose]),
    );
  }

  /** Inserts the certificate in the caller's transaction; answers it as stored. */
  async insert(
    manager: EntityManager,
    certificate: NewTenantCertificate,
  ): Promise<TenantCertificateEntity> {
    const { generatedMaps } = await manager
      .getRepository(TenantCertificateEntity)
      .insert({ ...certificate, expiringNotifiedAt: null });
    return {
      ...certificate,
      expiringNotifiedAt: null,
      ...(generatedMaps[0] as Pick<TenantCertificateEntity, 'createdAt'>),
    };
  }

  /** Marks at most `limit` active certificates expiring by `horizon` as announced, in the caller's transaction. */
  async announceExpiring(
    manager: EntityManager,
    now: Date,
    horizon: Date,
    limit: number,
  ): Promise<DueCertificate[]> {
    return rowsOf<DueCertificate>(await manager.query(announceExpiringSql, [now, horizon, limit]));
  }

  /** Marks at most `limit` active certificates past `now` as expired, in the caller's transaction. */
  async expireDue(manager: EntityManager, now: Date, limit: number): Promise<DueCertificate[]> {
    return rowsOf<DueCertificate>(await manager.query(expireDueSql, [now, limit]));
  }

  /** One page of the tenant's certificates, newest first, and how many it has in all. */
  page(
    tenantId: string,
    offset: number,
    size: number,
  ): Promise<[TenantCertificateEntity[], number]> {
    return this.dataSource.getRepository(TenantCertificateEntity).findAndCount({
      where: { tenantId },
      order: { createdAt: 'DESC', id: 'DESC' },
      skip: offset,
      take: size,
    });
  }
}
