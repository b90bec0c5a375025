import pg from 'pg';
import { type DataSource, type EntityManager } from 'typeorm';
import { type AuditLog } from '../audit/audit-log.js';
import { type Actor } from '../auth/caller.js';
import { tenantNotFound } from '../tenancy/tenant.errors.js';
import { type TenantsService } from '../tenants/tenants.service.js';
import { type TrustedIssuerEntity } from './trusted-issuer.entity.js';
import { trustedIssuerLimits } from './trusted-issuer-limits.js';
import {
  type NewTrustedIssuer,
  type TrustedIssuerPageRequest,
  type TrustedIssuerRepository,
} from './trusted-issuer.repository.js';
import { TrustedIssuersService } from './trusted-issuers.service.js';
import { codeOf } from '../../test/support/service-fakes.js';

/** The service without a database: the repository is a plain object over an array. */
describe(TrustedIssuersService.name, () => {
  const actor = { subject: 'admin' } as Actor;
  const id = '7f6d2c1e-3b4a-4c5d-8e9f-0a1b2c3d4e5f';
  let rows: TrustedIssuerEntity[];
  let audited: string[];
  let pages: TrustedIssuerPageRequest[];
  let steps: string[];
  let refusal: pg.DatabaseError | undefined;
  let service: TrustedIssuersService;

  // The tenant rule is the tenants feature's: only 'acme' exists.
  const tenants = {
    requireTenant: (tenantId: string) =>
      tenantId === 'acme' ? Promise.resolve() : Promise.reject(tenantNotFound(tenantId)),
  } as unknown as TenantsService;
  const manager = {} as EntityManager;
  const dataSource = {
    transaction: (run: (manager: EntityManager) => Promise<unknown>) => run(manager),
  } as unknown as DataSource;
  const repository = {
    page: (tenantId: string, request: TrustedIssuerPageRequest) => {
      pages.push(request);
      const mine = rows.filter((row) => row.tenantId === tenantId);
      return Promise.resolve([
        mine.slice(request.offset, request.offset + request.size),
        mine.length,
      ]);
    },
    findById: (tenantId: string, rowId: string) =>
      Promise.resolve(rows.find((row) => row.tenantId === tenantId && row.id === rowId) ?? null),
    exists: (_manager: EntityManager, tenantId: string, issuer: string) => {
      steps.push('exists');
      return Promise.resolve(
        rows.some((row) => row.tenantId === tenantId && row.issuer === issuer),
      );
    },
    lockCount: () => {
      steps.push('lock');
      return Promise.resolve();
    },
    count: (_manager: EntityManager, tenantId: string) => {
      steps.push('count');
      return Promise.resolve(rows.filter((row) => row.tenantId === tenantId).length);
    },
    insert: (_manager: EntityManager, entry: NewTrustedIssuer) => {
      steps.push('insert');
      if (refusal !== undefined) return Promise.reject(refusal);
      const row = { ...entry, createdAt: new Date('2026-01-01T00:00:00Z') };
      rows.push(row);
      return Promise.resolve(row);
    },
    delete: (tenantId: string, rowId: string) => {
      const before = rows.length;
      rows = rows.filter((row) => !(row.tenantId === tenantId && row.id === rowId));
      return Promise.resolve(rows.length < before);
    },
    issuersOf: (tenantId: string) =>
      Promise.resolve(rows.filter((row) => row.tenantId === tenantId).map((row) => row.issuer)),
  } as unknown as TrustedIssuerRepository;

  beforeEach(() => {
    rows = [];
    audited = [];
    pages = [];
    steps = [];
    refusal = undefined;
    const audit = { record: (action: string) => audited.push(action) } as unknown as AuditLog;
    service = new TrustedIssuersService(dataSource, audit, repository, tenants);
  });

  it('adds an issuer once, audits it, and answers 409 for the same issuer again', async () => {
    const created = await service.create('acme', { issuer: 'did:web:a.example' }, actor);
    expect(created).toMatchObject({
      tenantId: 'acme',
      issuer: 'did:web:a.example',
      description: null,
    });
    expect(created.createdAt).toBe('2026-01-01T00:00:00.000Z');
    expect(audited).toEqual(['trusted-issuer.create']);
    expect(await codeOf(service.create('acme', { issuer: 'did:web:a.example' }, actor))).toBe(
      'TRUSTED_ISSUER_ALREADY_EXISTS',
    );
    expect(rows).toHaveLength(1);
  });

  it('refuses an entry past the cap, and lists a full tenant whole', async () => {
    for (let index = 0; index < trustedIssuerLimits.entries; index++) {
      await service.create('acme', { issuer: `did:web:${index}.example` }, actor);
    }
    expect(
      await codeOf(service.create('acme', { issuer: 'did:web:one-more.example' }, actor)),
    ).toBe('TRUSTED_ISSUERS_LIMIT_REACHED');
    expect(await service.issuersOf('acme')).toHaveLength(trustedIssuerLimits.entries);
  });

  it('counts and inserts last, under the tenant count lock, after the duplicate check', async () => {
    await service.create('acme', { issuer: 'did:web:a.example' }, actor);
    expect(steps).toEqual(['exists', 'lock', 'count', 'insert']);
  });

  it('answers 409 when a concurrent add listed the issuer first, and 404 when the tenant went', async () => {
    refusal = serverError('23505');
    expect(await codeOf(service.create('acme', { issuer: 'did:web:a.example' }, actor))).toBe(
      'TRUSTED_ISSUER_ALREADY_EXISTS',
    );
    refusal = serverError('23503');
    expect(await codeOf(service.create('acme', { issuer: 'did:web:a.example' }, actor))).toBe(
      'TENANT_NOT_FOUND',
    );
    expect(audited).toEqual([]);
  });

  it('answers 404 for an unknown tenant before looking at its list', async () => {
    expect(await codeOf(service.list('nope', {}))).toBe('TENANT_NOT_FOUND');
    expect(await codeOf(service.create('nope', { issuer: 'did:web:a.example' }, actor))).toBe(
      'TENANT_NOT_FOUND',
    );
    expect(pages).toEqual([]);
    expect(rows).toEqual([]);
  });

  it('answers TRUSTED_ISSUER_NOT_FOUND for an unknown or malformed id, and audits no delete', async () => {
    expect(await codeOf(service.get('acme', id))).toBe('TRUSTED_ISSUER_NOT_FOUND');
    expect(await codeOf(service.get('acme', 'not-a-uuid'))).toBe('TRUSTED_ISSUER_NOT_FOUND');
    expect(await codeOf(service.delete('acme', id, actor))).toBe('TRUSTED_ISSUER_NOT_FOUND');
    expect(audited).toEqual([]);
  });

  it('sorts newest first by default, else by the named field and direction', async () => {
    await service.list('acme', {});
    await service.list('acme', { sort: 'issuer' });
    await service.list('acme', { sort: 'issuer,desc', page: 2, size: 5 });
    expect(pages).toEqual([
      { by: 'createdAt', direction: 'DESC', offset: 0, size: 20 },
      { by: 'issuer', direction: 'ASC', offset: 0, size: 20 },
      { by: 'issuer', direction: 'DESC', offset: 10, size: 5 },
    ]);
  });
});

/** What PostgreSQL answers for a violated constraint (23505 unique, 23503 foreign key). */
function serverError(code: string): pg.DatabaseError {
  const error = new pg.DatabaseError('refused by the server', 0, 'error');
  error.code = code;
  return error;
}
