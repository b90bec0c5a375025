import pg from 'pg';
import { type DataSource, type EntityManager } from 'typeorm';
import { type AuditLog } from '../audit/audit-log.js';
import { type Actor } from '../auth/caller.js';
import { type DomainException } from '../common/problem/domain.exception.js';
import { tenantNotFound } from '../tenancy/tenant.errors.js';
import { type TenantsService } from '../tenants/tenants.service.js';
import { type CredentialConfigurationEntity } from './credential-configuration.entity.js';
import { configurationLimits } from './credential-configuration-limits.js';
import {
  type ConfigurationPageRequest,
  type CredentialConfigurationRepository,
  type NewCredentialConfiguration,
} from './credential-configuration.repository.js';
import { type ConfigurationDefinition } from './credential-configuration.rules.js';
import { CredentialConfigurationsService } from './credential-configurations.service.js';
import { type CreateCredentialConfigurationDto } from './dto/credential-configuration.dto.js';
import { codeOf } from '../../test/support/service-fakes.js';

/** The service without a database: the repository is a plain object over an array. */
describe(CredentialConfigurationsService.name, () => {
  const actor = { subject: 'admin' } as Actor;
  const at = new Date('2026-01-01T00:00:00Z');
  let rows: CredentialConfigurationEntity[];
  let audited: string[];
  let pages: ConfigurationPageRequest[];
  let steps: string[];
  let refusal: pg.DatabaseError | undefined;
  let service: CredentialConfigurationsService;

  // The tenant rule is the tenants feature's: only 'acme' exists.
  let tenantChecks = 0;
  const tenants = {
    requireTenant: (tenantId: string) => {
      tenantChecks++;
      return tenantId === 'acme' ? Promise.resolve() : Promise.reject(tenantNotFound(tenantId));
    },
  } as unknown as TenantsService;
  const dataSource = {
    transaction: (run: (manager: EntityManager) => Promise<unknown>) => run({} as EntityManager),
  } as unknown as DataSource;
  const find = (tenantId: string, id: string) =>
    rows.find((row) => row.tenantId === tenantId && row.id === id);
  const repository = {
    page: (tenantId: string, request: ConfigurationPageRequest) => {
      pages.push(request);
      const mine = rows.filter((row) => row.tenantId === tenantId);
      return Promise.resolve([
        mine.slice(request.offset, request.offset + request.size),
        mine.length,
      ]);
    },
    findById: (tenantId: string, id: string) => Promise.resolve(find(tenantId, id) ?? null),
    allOf: (tenantId: string) => Promise.resolve(rows.filter((row) => row.tenantId === tenantId)),
    exists: (_manager: EntityManager, tenantId: string, id: string) => {
      steps.push('exists');
      return Promise.resolve(find(tenantId, id) !== undefined);
    },
    lockCount: () => {
      steps.push('lock');
      return Promise.resolve();
    },
    count: (_manager: EntityManager, tenantId: string) => {
      steps.push('count');
      return Promise.resolve(rows.filter((row) => row.tenantId === tenantId).length);
    },
    insert: (_manager: EntityManager, configuration: NewCredentialConfiguration) => {
      steps.push('insert');
      if (refusal !== undefined) return Promise.reject(refusal);
      const row = {
        ...configuration,
        keyAttestationsRequired: configuration.keyAttestationsRequired ?? null,
        doctype: configuration.doctype ?? null,
        createdAt: at,
        updatedAt: at,
      };
      rows.push(row);
      return Promise.resolve(row);
    },
    replace: (
      _manager: EntityManager,
      tenantId: string,
      id: string,
      definition: ConfigurationDefinition,
    ) => {
      const row = find(tenantId, id);
      if (row !== undefined) Object.assign(row, definition);
      return Promise.resolve(row ?? null);
    },
    delete: (tenantId: string, id: string) => {
      const before = rows.length;
      rows = rows.filter((row) => !(row.tenantId === tenantId && row.id === id));
      return Promise.resolve(rows.length < before);
    },
  } as unknown as CredentialConfigurationRepository;

  const sdJwt = (id: string): CreateCredentialConfigurationDto => ({
    id,
    format: 'dc+sd-jwt',
    vct: 'https://acme.example/badge',
    claims: [{ path: ['given_name'] }, { path: ['address', 'locality'] }],
  });

  beforeEach(() => {
    rows = [];
    audited = [];
    pages = [];
    steps = [];
    refusal = undefined;
    const audit = { record: (action: string) => audited.push(action) } as unknown as AuditLog;
    service = new CredentialConfigurationsService(dataSource, audit, repository, tenants);
  });

  it('counts and inserts last, under the tenant count lock, after the duplicate check', async () => {
    await service.create('acme', sdJwt('Badge'), actor);
    expect(steps).toEqual(['exists', 'lock', 'count', 'insert']);
  });

  it('answers 409 when a concurrent create took the id first, and 404 when the tenant went', async () => {
    refusal = serverError('23505');
    expect(await codeOf(service.create('acme', sdJwt('Badge'), actor))).toBe(
      'CREDENTIAL_CONFIGURATION_ALREADY_EXISTS',
    );
    refusal = serverError('23503');
    expect(await codeOf(service.create('acme', sdJwt('Badge'), actor))).toBe('TENANT_NOT_FOUND');
    expect(audited).toEqual([]);
  });

  it('adds with the defaults, audits it, and answers 409 for the same id again', async () => {
    const created = await service.create('acme', sdJwt('Badge'), actor);
    expect(created).toMatchObject({
      id: 'Badge',
      selectivelyDisclosable: [['given_name'], ['address', 'locality']],
      signingAlgorithm: 'ES256',
      cryptosuite: null,
      revocable: true,
      display: [],
    });
    expect(audited).toEqual(['oid4vci.credential-configuration.create']);
    expect(await codeOf(service.create('acme', sdJwt('Badge'), actor))).toBe(
      'CREDENTIAL_CONFIGURATION_ALREADY_EXISTS',
    );
    expect(rows).toHaveLength(1);
  });

  it('refuses what breaks a rule between fields before reading anything', async () => {
    const bad = { ...sdJwt('Bad'), cryptosuite: 'eddsa-rdfc-2022' as const, vct: undefined };
    const error = await service.create('nope', bad, actor).catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect((error as DomainException).errors?.map((entry) => entry.field).sort()).toEqual([
      'cryptosuite',
      'vct',
    ]);
    expect(rows).toEqual([]);
  });

  it('keeps claimsFromLogin of described top-level claims, refusing others', async () => {
    const created = await service.create(
      'acme',
      { ...sdJwt('Login'), claimsFromLogin: { given_name: 'given_name' } },
      actor,
    );
    expect(created.claimsFromLogin).toEqual({ given_name: 'given_name' });
    const bad = {
      ...sdJwt('Bad'),
      claimsFromLogin: { nickname: 'nickname', given_name: 'no spaces allowed' },
    };
    const error = await service.create('acme', bad, actor).catch((thrown: unknown) => thrown);
    expect((error as DomainException).errors?.map((entry) => entry.field).sort()).toEqual([
      'claimsFromLogin.given_name',
      'claimsFromLogin.nickname',
    ]);
  });

  it('refuses a configuration past the cap', async () => {
    for (let index = 0; index < configurationLimits.perTenant; index++) {
      await service.create('acme', sdJwt(`Badge_${index}`), actor);
    }
    expect(await codeOf(service.create('acme', sdJwt('One_more'), actor))).toBe(
      'CREDENTIAL_CONFIGURATIONS_LIMIT_REACHED',
    );
  });

  it('replaces a definition, defaults included, and audits it; an unknown id is 404', async () => {
    await service.create('acme', { ...sdJwt('Badge'), revocable: false }, actor);
    const replaced = await service.update(
      'acme',
      'Badge',
      {
        format: 'ldp_vc',
        credentialDefinition: { '@context': [], type: ['VerifiableCredential'] },
      },
      actor,
    );
    expect(replaced).toMatchObject({
      format: 'ldp_vc',
      vct: null,
      claims: [],
      selectivelyDisclosable: null,
      signingAlgorithm: null,
      cryptosuite: 'eddsa-rdfc-2022',
      revocable: true,
    });
    expect(audited).toContain('oid4vci.credential-configuration.update');
    const body = { format: 'dc+sd-jwt' as const, vct: 'x' };
    expect(await codeOf(service.update('acme', 'Nothing', body, actor))).toBe(
      'CREDENTIAL_CONFIGURATION_NOT_FOUND',
    );
  });

  it('reads a stored configuration in one read (its row implies its tenant), and tells an unknown tenant from an unknown configuration', async () => {
    await service.create('acme', sdJwt('Badge'), actor);
    tenantChecks = 0;
    expect((await service.get('acme', 'Badge')).id).toBe('Badge');
    expect(tenantChecks).toBe(0);
    expect(await codeOf(service.get('nope', 'Badge'))).toBe('TENANT_NOT_FOUND');
    expect(await codeOf(service.get('nope', 'a b'))).toBe('TENANT_NOT_FOUND');
    expect(await codeOf(service.get('acme', 'Other'))).toBe('CREDENTIAL_CONFIGURATION_NOT_FOUND');
  });

  it('answers CREDENTIAL_CONFIGURATION_NOT_FOUND for an unknown or malformed id, auditing no delete', async () => {
    expect(await codeOf(service.get('acme', 'Nothing'))).toBe('CREDENTIAL_CONFIGURATION_NOT_FOUND');
    expect(await codeOf(service.get('acme', 'a b'))).toBe('CREDENTIAL_CONFIGURATION_NOT_FOUND');
    expect(await codeOf(service.delete('acme', 'Nothing', actor))).toBe(
      'CREDENTIAL_CONFIGURATION_NOT_FOUND',
    );
    expect(audited).toEqual([]);
  });

  it('answers 404 for an unknown tenant, and sorts newest first by default', async () => {
    expect(await codeOf(service.list('nope', {}))).toBe('TENANT_NOT_FOUND');
    expect(await codeOf(service.create('nope', sdJwt('Badge'), actor))).toBe('TENANT_NOT_FOUND');
    await service.list('acme', {});
    await service.list('acme', { sort: 'id,desc', page: 1, size: 5 });
    expect(pages).toEqual([
      { by: 'createdAt', direction: 'DESC', offset: 0, size: 20 },
      { by: 'id', direction: 'DESC', offset: 5, size: 5 },
    ]);
  });
});

/** What PostgreSQL answers for a violated constraint (23505 unique, 23503 foreign key). */
function serverError(code: string): pg.DatabaseError {
  const error = new pg.DatabaseError('refused by the server', 0, 'error');
  error.code = code;
  return error;
}
