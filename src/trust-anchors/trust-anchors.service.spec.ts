import pg from 'pg';
import { type DataSource, type EntityManager } from 'typeorm';
import { type AuditLog } from '../audit/audit-log.js';
import { type Actor } from '../auth/caller.js';
import { tenantNotFound } from '../tenancy/tenant.errors.js';
import { type TenantsService } from '../tenants/tenants.service.js';
import { type TrustAnchorEntity } from './trust-anchor.entity.js';
import { trustAnchorLimits } from './trust-anchor-limits.js';
import { TrustAnchorPolicy } from './trust-anchor-policy.js';
import {
  type NewTrustAnchor,
  type TrustAnchorPageRequest,
  type TrustAnchorRepository,
} from './trust-anchor.repository.js';
import { TrustAnchorsService } from './trust-anchors.service.js';
import { codeOf } from '../../test/support/service-fakes.js';
import { makeCertificate, makePki } from '../../test/support/x509-test-pki.js';

/** The service without a database: the repository is a plain object over an array. */
describe(TrustAnchorsService.name, () => {
  const actor = { subject: 'admin' } as Actor;
  let rows: TrustAnchorEntity[];
  let audited: string[];
  let steps: string[];
  let pages: TrustAnchorPageRequest[];
  let refusal: pg.DatabaseError | undefined;
  let service: TrustAnchorsService;
  let pki: Awaited<ReturnType<typeof makePki>>;

  const tenants = {
    requireTenant: (tenantId: string) =>
      tenantId === 'acme' ? Promise.resolve() : Promise.reject(tenantNotFound(tenantId)),
  } as unknown as TenantsService;
  const dataSource = {
    transaction: (run: (manager: EntityManager) => Promise<unknown>) => run({} as EntityManager),
  } as unknown as DataSource;
  const mine = (tenantId: string) => rows.filter((row) => row.tenantId === tenantId);
  const repository = {
    page: (tenantId: string, request: TrustAnchorPageRequest) => {
      pages.push(request);
      return Promise.resolve([mine(tenantId), mine(tenantId).length]);
    },
    findById: (tenantId: string, id: string) =>
      Promise.resolve(mine(tenantId).find((row) => row.id === id) ?? null),
    exists: (_manager: EntityManager, tenantId: string, fingerprint: string) => {
      steps.push('exists');
      return Promise.resolve(mine(tenantId).some((row) => row.fingerprint === fingerprint));
    },
    lockCount: () => {
      steps.push('lock');
      return Promise.resolve();
    },
    count: (_manager: EntityManager, tenantId: string) => {
      steps.push('count');
      return Promise.resolve(mine(tenantId).length);
    },
    insert: (_manager: EntityManager, anchor: NewTrustAnchor) => {
      steps.push('insert');
      if (refusal !== undefined) return Promise.reject(refusal);
      const row = { ...anchor, createdAt: new Date('2026-01-01T00:00:00Z') };
      rows.push(row);
      return Promise.resolve(row);
    },
    delete: (tenantId: string, id: string) => {
      const before = rows.length;
      rows = rows.filter((row) => !(row.tenantId === tenantId && row.id === id));
      return Promise.resolve(rows.length < before);
    },
    certificatesOf: (tenantId: string) => Promise.resolve(mine(tenantId)),
  } as unknown as TrustAnchorRepository;

  beforeAll(async () => {
    pki = await makePki();
  });

  beforeEach(() => {
    rows = [];
    audited = [];
    steps = [];
    pages = [];
    refusal = undefined;
    const audit = { record: (action: string) => audited.push(action) } as unknown as AuditLog;
    service = new TrustAnchorsService(dataSource, audit, repository, tenants);
  });

  it('adds a CA certificate once with what it reads of it, audits it, and answers 409 for it again', async () => {
    const created = await service.create(
      'acme',
      { certificate: pki.root.pem, label: 'Root' },
      actor,
    );
    expect(created).toMatchObject({
      tenantId: 'acme',
      label: 'Root',
      subject: pki.root.subject,
      issuer: pki.root.subject,
      subjectKeyIdentifier: pki.root.keyId,
      certificate: `${pki.root.pem.replace(/\r/g, '')}\n`,
      createdAt: '2026-01-01T00:00:00.000Z',
    });
    expect(steps).toEqual(['exists', 'lock', 'count', 'insert']);
    expect(audited).toEqual(['trust-anchor.create']);
    expect(await codeOf(service.create('acme', { certificate: pki.root.pem }, actor))).toBe(
      'TRUST_ANCHOR_ALREADY_EXISTS',
    );
    await service.create('acme', { certificate: pki.intermediate.pem }, actor);
    expect(rows).toHaveLength(2);
  });

  it('refuses what is not a PEM certificate, an issued leaf, and an expired certificate', async () => {
    const expired = await makeCertificate('Old root', {
      ca: true,
      notBefore: new Date(Date.now() - 3 * 86_400_000),
      notAfter: new Date(Date.now() - 86_400_000),
    });
    for (const certificate of [
      'hello',
      pki.root.base64,
      '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----',
      `${pki.root.pem}${pki.intermediate.pem}`,
      pki.leaf.pem,
      expired.pem,
    ]) {
      expect(await codeOf(service.create('acme', { certificate }, actor))).toBe(
        'VALIDATION_FAILED',
      );
    }
    expect(steps).toEqual([]);
    expect(rows).toEqual([]);
  });

  it('refuses an anchor past the cap', async () => {
    for (let index = 0; index < trustAnchorLimits.entries; index++) {
      rows.push({ ...rowLike(), id: `${index}`, fingerprint: `${index}` });
    }
    expect(await codeOf(service.create('acme', { certificate: pki.root.pem }, actor))).toBe(
      'TRUST_ANCHORS_LIMIT_REACHED',
    );
  });

  it('answers 409 or 404 for what the database refused, and audits nothing', async () => {
    refusal = serverError('23505');
    expect(await codeOf(service.create('acme', { certificate: pki.root.pem }, actor))).toBe(
      'TRUST_ANCHOR_ALREADY_EXISTS',
    );
    refusal = serverError('23503');
    expect(await codeOf(service.create('acme', { certificate: pki.root.pem }, actor))).toBe(
      'TENANT_NOT_FOUND',
    );
    expect(await codeOf(service.list('nope', {}))).toBe('TENANT_NOT_FOUND');
    expect(audited).toEqual([]);
  });

  it('answers TRUST_ANCHOR_NOT_FOUND for an unknown or malformed id', async () => {
    const id = '7f6d2c1e-3b4a-4c5d-8e9f-0a1b2c3d4e5f';
    expect(await codeOf(service.get('acme', id))).toBe('TRUST_ANCHOR_NOT_FOUND');
    expect(await codeOf(service.get('acme', 'not-a-uuid'))).toBe('TRUST_ANCHOR_NOT_FOUND');
    expect(await codeOf(service.delete('acme', id, actor))).toBe('TRUST_ANCHOR_NOT_FOUND');
    expect(audited).toEqual([]);
  });

  it('sorts newest first by default, else by the named field', async () => {
    await service.list('acme', {});
    await service.list('acme', { sort: 'notAfter', page: 1, size: 5 });
    expect(pages).toEqual([
      { by: 'createdAt', direction: 'DESC', offset: 0, size: 20 },
      { by: 'notAfter', direction: 'ASC', offset: 5, size: 5 },
    ]);
  });

  it('gives the verifier the parsed anchors, or undefined for a tenant without any', async () => {
    const policy = new TrustAnchorPolicy(service);
    expect(await policy.anchorsFor('acme')).toBeUndefined();
    await service.create('acme', { certificate: pki.root.pem }, actor);
    const anchors = await policy.anchorsFor('acme');
    expect(anchors?.map((anchor) => anchor.subject)).toEqual([pki.root.subject]);
    expect(await policy.anchorsFor('acme')).toEqual(anchors);
  });
});

function rowLike(): TrustAnchorEntity {
  return {
    id: '',
    tenantId: 'acme',
    label: null,
    fingerprint: '',
    certificate: '',
    subject: 'CN=x',
    issuer: 'CN=x',
    notBefore: new Date(),
    notAfter: new Date(),
    subjectKeyIdentifier: null,
    createdAt: new Date(),
  };
}

/** What PostgreSQL answers for a violated constraint (23505 unique, 23503 foreign key). */
function serverError(code: string): pg.DatabaseError {
  const error = new pg.DatabaseError('refused by the server', 0, 'error');
  error.code = code;
  return error;
}
