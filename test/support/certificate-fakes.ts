import { generateKeyPairSync, sign } from 'node:crypto';
import { type EntityManager } from 'typeorm';
import {
  type CertificatePurpose,
  type TenantCertificateEntity,
} from '../../src/certificates/tenant-certificate.entity.js';
import {
  type DueCertificate,
  type NewTenantCertificate,
  type RetiredCertificate,
  type TenantCertificateRepository,
} from '../../src/certificates/tenant-certificate.repository.js';
import { type Es256SigningKey, type TenantKeys } from '../../src/did/tenant-keys.service.js';
import { tenantNotFound } from '../../src/tenancy/tenant.errors.js';
import { type TenantsService } from '../../src/tenants/tenants.service.js';

/** The certificates table as an array, with the statements' rules (one active, expiry, announcement). */
export function fakeCertificateRepository(clock: () => number) {
  const rows: TenantCertificateEntity[] = [];
  const steps: string[] = [];
  const active = (tenantId: string, purpose: CertificatePurpose = 'x5c') =>
    rows.find(
      (row) => row.tenantId === tenantId && row.status === 'active' && row.purpose === purpose,
    );
  const repository = {
    activeOf: (tenantId: string, purpose: CertificatePurpose) =>
      Promise.resolve(active(tenantId, purpose)),
    lock: (_manager: EntityManager, tenantId: string) => {
      steps.push(`lock ${tenantId}`);
      return Promise.resolve();
    },
    retireActive: (
      _manager: EntityManager,
      tenantId: string,
      now: Date,
      purpose: CertificatePurpose,
    ) => {
      const row = active(tenantId, purpose);
      if (row === undefined) return Promise.resolve([]);
      row.status = row.notAfter <= now ? 'expired' : 'superseded';
      return Promise.resolve<RetiredCertificate[]>([
        { id: row.id, status: row.status, notAfter: row.notAfter },
      ]);
    },
    insert: (_manager: EntityManager, certificate: NewTenantCertificate) => {
      steps.push(`insert ${certificate.source}`);
      const row = { ...certificate, expiringNotifiedAt: null, createdAt: new Date(clock()) };
      rows.push(row);
      return Promise.resolve(row);
    },
    page: (tenantId: string, offset: number, size: number) => {
      const mine = rows.filter((row) => row.tenantId === tenantId).reverse();
      return Promise.resolve([mine.slice(offset, offset + size), mine.length]);
    },
    announceExpiring: (_manager: EntityManager, now: Date, horizon: Date, limit: number) => {
      const due = rows
        .filter(
          (row) =>
            row.status === 'active' &&
            row.expiringNotifiedAt === null &&
            row.notAfter > now &&
            row.notAfter <= horizon,
        )
        .slice(0, limit);
      for (const row of due) row.expiringNotifiedAt = now;
      return Promise.resolve(due.map(dueOf));
    },
    expireDue: (_manager: EntityManager, now: Date, limit: number) => {
      const due = rows
        .filter((row) => row.status === 'active' && row.notAfter <= now)
        .slice(0, limit);
      for (const row of due) row.status = 'expired';
      return Promise.resolve(due.map(dueOf));
    },
  };
  return { rows, steps, repository: repository as unknown as TenantCertificateRepository };
}

function dueOf(row: TenantCertificateEntity): DueCertificate {
  return { id: row.id, tenantId: row.tenantId, notAfter: row.notAfter };
}

/** A certificate row as the table holds it, for a test to start from. */
export function certificateRow(
  fields: Partial<TenantCertificateEntity> & Pick<TenantCertificateEntity, 'id' | 'tenantId'>,
): TenantCertificateEntity {
  return {
    status: 'active',
    source: 'imported',
    purpose: 'x5c',
    kid: 'kid',
    subject: 'CN=x',
    issuer: 'CN=ca',
    serialNumber: '01',
    dnsNames: [],
    uris: [],
    x5c: ['AAAA'],
    notBefore: new Date(Date.UTC(2025, 0, 1)),
    notAfter: new Date(Date.UTC(2027, 0, 1)),
    expiringNotifiedAt: null,
    createdAt: new Date(Date.UTC(2025, 0, 1)),
    ...fields,
  };
}

/** One real P-256 key per tenant, signing as TenantKeys does; only the listed tenants exist. */
export function fakeTenantKeys(tenantIds: readonly string[]) {
  const keys = new Map(
    tenantIds.map((tenantId) => {
      const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      const { x, y } = publicKey.export({ format: 'jwk' });
      const key: Es256SigningKey = {
        kid: `kid-${tenantId}`,
        alg: 'ES256',
        publicJwk: { kty: 'EC', crv: 'P-256', x: x!, y: y! },
        sign: (data) =>
          Promise.resolve(
            new Uint8Array(sign('sha256', data, { key: privateKey, dsaEncoding: 'ieee-p1363' })),
          ),
      };
      return [tenantId, key] as const;
    }),
  );
  const tenantKeys = {
    es256SigningKey: (tenantId: string) => {
      const key = keys.get(tenantId);
      return key === undefined ? Promise.reject(tenantNotFound(tenantId)) : Promise.resolve(key);
    },
  } as unknown as TenantKeys;
  const tenants = {
    requireTenant: (tenantId: string) =>
      keys.has(tenantId) ? Promise.resolve() : Promise.reject(tenantNotFound(tenantId)),
  } as unknown as TenantsService;
  return { keys, tenantKeys, tenants };
}
