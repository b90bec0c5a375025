import pg from 'pg';
import { type DataSource, type EntityManager } from 'typeorm';
import { type AuditLog } from '../audit/audit-log.js';
import { type Actor } from '../auth/caller.js';
import { tenantNotFound } from '../tenancy/tenant.errors.js';
import { type TenantsService } from '../tenants/tenants.service.js';
import { type WalletProviderEntity } from './wallet-provider.entity.js';
import { walletProviderLimits } from './wallet-provider-limits.js';
import { WalletProviderCertificates } from './wallet-provider-certificates.js';
import {
  type NewWalletProvider,
  type WalletProviderPageRequest,
  type WalletProviderRepository,
} from './wallet-provider.repository.js';
import { WalletProvidersService } from './wallet-providers.service.js';
import { type WalletAttestationSetting } from './wallet-attestation-policy.entity.js';
import { codeOf } from '../../test/support/service-fakes.js';
import { makeCertificate, makePki } from '../../test/support/x509-test-pki.js';

/** The service without a database: the repository is a plain object over an array and a map. */
describe(WalletProvidersService.name, () => {
  const actor = { subject: 'admin' } as Actor;
  let rows: WalletProviderEntity[];
  let audited: string[];
  let steps: string[];
  let pages: WalletProviderPageRequest[];
  let refusal: pg.DatabaseError | undefined;
  const settings = new Map<string, WalletAttestationSetting>();
  let service: WalletProvidersService;
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
    page: (tenantId: string, request: WalletProviderPageRequest) => {
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
    insert: (_manager: EntityManager, provider: NewWalletProvider) => {
      steps.push('insert');
      if (refusal !== undefined) return Promise.reject(refusal);
      const row = { ...provider, createdAt: new Date('2026-01-01T00:00:00Z') };
      rows.push(row);
      return Promise.resolve(row);
    },
    delete: (tenantId: string, id: string) => {
      const before = rows.length;
      rows = rows.filter((row) => !(row.tenantId === tenantId && row.id === id));
      return Promise.resolve(rows.length < before);
    },
    certificatesOf: (tenantId: string) => Promise.resolve(mine(tenantId)),
    policyOf: (tenantId: string) =>
      Promise.resolve({
        setting: settings.get(tenantId) ?? null,
        listed: mine(tenantId).length > 0,
      }),
    setPolicy: (tenantId: string, setting: WalletAttestationSetting | null) => {
      if (setting === null) settings.delete(tenantId);
      else settings.set(tenantId, setting);
      return Promise.resolve();
    },
  } as unknown as WalletProviderRepository;

  beforeAll(async () => {
    pki = await makePki();
  });

  beforeEach(() => {
    rows = [];
    audited = [];
    steps = [];
    pages = [];
    refusal = undefined;
    settings.clear();
    const audit = { record: (action: string) => audited.push(action) } as unknown as AuditLog;
    service = new WalletProvidersService(dataSource, audit, repository, tenants);
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
    expect(audited).toEqual(['wallet-provider.create']);
    expect(await codeOf(service.create('acme', { certificate: pki.root.pem }, actor))).toBe(
      'WALLET_PROVIDER_ALREADY_EXISTS',
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

  it('refuses a wallet provider past the cap', async () => {
    for (let index = 0; index < walletProviderLimits.entries; index++) {
      rows.push({ ...rowLike(), id: `${index}`, fingerprint: `${index}` });
    }
    expect(await codeOf(service.create('acme', { certificate: pki.root.pem }, actor))).toBe(
      'WALLET_PROVIDERS_LIMIT_REACHED',
    );
  });

  it('answers 409 or 404 for what the database refused, and audits nothing', async () => {
    refusal = serverError('23505');
    expect(await codeOf(service.create('acme', { certificate: pki.root.pem }, actor))).toBe(
      'WALLET_PROVIDER_ALREADY_EXISTS',
    );
    refusal = serverError('23503');
    expect(await codeOf(service.create('acme', { certificate: pki.root.pem }, actor))).toBe(
      'TENANT_NOT_FOUND',
    );
    expect(await codeOf(service.list('nope', {}))).toBe('TENANT_NOT_FOUND');
    expect(audited).toEqual([]);
  });

  it('answers WALLET_PROVIDER_NOT_FOUND for an unknown or malformed id', async () => {
    const id = '7f6d2c1e-3b4a-4c5d-8e9f-0a1b2c3d4e5f';
    expect(await codeOf(service.get('acme', id))).toBe('WALLET_PROVIDER_NOT_FOUND');
    expect(await codeOf(service.get('acme', 'not-a-uuid'))).toBe('WALLET_PROVIDER_NOT_FOUND');
    expect(await codeOf(service.delete('acme', id, actor))).toBe('WALLET_PROVIDER_NOT_FOUND');
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

  it('gives the attestation checks the parsed certificates, none for a tenant without any', async () => {
    const certificates = new WalletProviderCertificates(repository);
    expect(await certificates.of('acme')).toEqual([]);
    await service.create('acme', { certificate: pki.root.pem }, actor);
    const parsed = await certificates.of('acme');
    expect(parsed.map((certificate) => certificate.subject)).toEqual([pki.root.subject]);
    expect(await certificates.of('acme')).toEqual(parsed);
  });

  it('answers the default policy from the list, and a choice once made', async () => {
    expect(await service.policy('acme')).toEqual({
      walletAttestation: 'optional',
      explicit: false,
    });
    await service.create('acme', { certificate: pki.root.pem }, actor);
    expect(await service.policy('acme')).toEqual({
      walletAttestation: 'required',
      explicit: false,
    });
    await service.setPolicy('acme', { walletAttestation: 'optional' }, actor);
    expect(await service.policy('acme')).toEqual({ walletAttestation: 'optional', explicit: true });
    await service.setPolicy('acme', { walletAttestation: null }, actor);
    expect(await service.policy('acme')).toEqual({
      walletAttestation: 'required',
      explicit: false,
    });
    expect(audited.filter((action) => action === 'wallet-provider.policy')).toHaveLength(2);
    expect(await codeOf(service.policy('nope'))).toBe('TENANT_NOT_FOUND');
  });
});

function rowLike(): WalletProviderEntity {
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
