import { expectFieldErrors, expectProblem } from './support/problems.js';
import { startTestService, type TestService } from './support/test-service.js';

import { ldpBadge, sdJwtBadge } from './support/oid4vci-fixtures.js';

const base = '/ctrl/api/v1.0/oid4vci/credential-configurations';
type Json = Record<string, unknown>;

/**
 * A tenant's OpenID4VCI credential configurations over real HTTP and PostgreSQL: the routes, their
 * access rules, tenant isolation, the rules between fields and the bounds.
 */
describe('OpenID4VCI credential configurations', () => {
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService();
    for (const id of ['demo', 'other', 'full'])
      await service.client().createTenant({ id, label: id });
  });
  afterAll(() => service.close());

  const create = (tenantId: string, body: unknown, as: 'admin' | 'demo' = 'admin') =>
    service.request<Json>(`${base}/create`, {
      method: 'POST',
      as,
      headers: { 'x-tenant-id': tenantId },
      body,
    });
  const count = async (tenantId: string) =>
    (await service.client().listCredentialConfigurations(tenantId)).totalElements;

  it('creates with the defaults, reads, lists, replaces and deletes (an agent-user for its tenant)', async () => {
    const client = service.client('demo');
    const created = await client.createCredentialConfiguration('demo', sdJwtBadge);
    expect(created).toMatchObject({
      ...sdJwtBadge,
      tenantId: 'demo',
      credentialDefinition: null,
      selectivelyDisclosable: [['given_name'], ['address', 'locality']],
      expiresInSeconds: null,
      revocable: true,
      signingAlgorithm: 'ES256',
      cryptosuite: null,
    });
    expect(await client.getCredentialConfiguration('demo', sdJwtBadge.id)).toEqual(created);
    const page = await client.listCredentialConfigurations('demo', { sort: 'id,asc', size: 5 });
    expect(page).toMatchObject({ number: 0, size: 5, totalElements: 1, totalPages: 1 });
    expect(page.content).toEqual([created]);

    const { format, credentialDefinition, claims, display } = ldpBadge;
    const replaced = await client.updateCredentialConfiguration('demo', sdJwtBadge.id, {
      format,
      credentialDefinition,
      claims,
      display,
      expiresInSeconds: 3600,
      revocable: false,
    });
    expect(replaced).toMatchObject({
      id: sdJwtBadge.id,
      format: 'ldp_vc',
      vct: null,
      credentialDefinition: ldpBadge.credentialDefinition,
      selectivelyDisclosable: null,
      expiresInSeconds: 3600,
      revocable: false,
      signingAlgorithm: null,
      cryptosuite: 'eddsa-rdfc-2022',
      createdAt: created.createdAt,
    });

    await client.deleteCredentialConfiguration('demo', sdJwtBadge.id);
    const path = `${base}/${sdJwtBadge.id}`;
    const gone = await service.request(path, { headers: { 'x-tenant-id': 'demo' } });
    expectProblem(gone, 404, 'CREDENTIAL_CONFIGURATION_NOT_FOUND', path);
  });

  it('refuses an id the tenant has already (409), and lets another tenant use it', async () => {
    expect((await create('demo', ldpBadge)).status).toBe(201);
    try {
      const again = await create('demo', { ...ldpBadge, cryptosuite: 'eddsa-jcs-2022' });
      expectFieldErrors(
        expectProblem(again, 409, 'CREDENTIAL_CONFIGURATION_ALREADY_EXISTS', `${base}/create`),
        ['id'],
      );
      expect((await create('other', ldpBadge)).status).toBe(201);
      await service.client().deleteCredentialConfiguration('other', ldpBadge.id);
    } finally {
      await service.client().deleteCredentialConfiguration('demo', ldpBadge.id);
    }
  });

  it('keeps tenants apart: another tenant cannot read, replace or delete (404), nor list', async () => {
    expect((await create('demo', sdJwtBadge)).status).toBe(201);
    try {
      const body = { format: 'dc+sd-jwt', vct: 'https://acme.example/other' };
      for (const [path, method, sent] of [
        [`${base}/${sdJwtBadge.id}`, 'GET', undefined],
        [`${base}/${sdJwtBadge.id}/update`, 'POST', body],
        [`${base}/${sdJwtBadge.id}/delete`, 'POST', undefined],
      ] as const) {
        const response = await service.request(path, {
          method,
          headers: { 'x-tenant-id': 'other' },
          body: sent,
        });
        expectProblem(response, 404, 'CREDENTIAL_CONFIGURATION_NOT_FOUND', path);
      }
      expect(await count('other')).toBe(0);
      const foreign = await service.request(base, {
        as: 'demo',
        headers: { 'x-tenant-id': 'other' },
      });
      expectProblem(foreign, 403, 'FORBIDDEN', base);
      expectProblem(await create('other', ldpBadge, 'demo'), 403, 'FORBIDDEN', `${base}/create`);
      expectProblem(await create('nobody', ldpBadge), 404, 'TENANT_NOT_FOUND', `${base}/create`);
      const anonymous = await service.request(base, {
        as: 'anonymous',
        headers: { 'x-tenant-id': 'demo' },
      });
      expectProblem(anonymous, 401, 'UNAUTHORIZED', base);
      expect((await service.client().getCredentialConfiguration('demo', sdJwtBadge.id)).id).toBe(
        sdJwtBadge.id,
      );
    } finally {
      await service.client().deleteCredentialConfiguration('demo', sdJwtBadge.id);
    }
  });

  const manyClaims = (count: number) =>
    Array.from({ length: count }, (_, index) => ({ path: [`claim${index}`] }));
  it.each<[string, Json, string]>([
    ['an id with a space', { ...sdJwtBadge, id: 'Employee Badge' }, 'id'],
    ['an id over 64 characters', { ...sdJwtBadge, id: 'x'.repeat(65) }, 'id'],
    ['an unknown format', { ...sdJwtBadge, format: 'jwt_vc_json' }, 'format'],
    ['dc+sd-jwt without vct', { ...sdJwtBadge, vct: undefined }, 'vct'],
    ['a vct with spaces', { ...sdJwtBadge, vct: 'Employee badge' }, 'vct'],
    [
      'dc+sd-jwt with a cryptosuite',
      { ...sdJwtBadge, cryptosuite: 'eddsa-rdfc-2022' },
      'cryptosuite',
    ],
    [
      'dc+sd-jwt with a credential definition',
      { ...sdJwtBadge, credentialDefinition: ldpBadge.credentialDefinition },
      'credentialDefinition',
    ],
    [
      'an unknown signing algorithm',
      { ...sdJwtBadge, signingAlgorithm: 'RS256' },
      'signingAlgorithm',
    ],
    [
      'ldp_vc without a credential definition',
      { ...ldpBadge, credentialDefinition: undefined },
      'credentialDefinition',
    ],
    [
      'ldp_vc whose type lacks VerifiableCredential',
      {
        ...ldpBadge,
        credentialDefinition: {
          '@context': ['https://www.w3.org/ns/credentials/v2'],
          type: ['EmployeeBadge'],
        },
      },
      'credentialDefinition.type',
    ],
    ['ldp_vc with a vct', { ...ldpBadge, vct: 'x' }, 'vct'],
    [
      'ldp_vc with a signing algorithm',
      { ...ldpBadge, signingAlgorithm: 'ES256' },
      'signingAlgorithm',
    ],
    [
      'ldp_vc with selectively disclosable claims',
      { ...ldpBadge, selectivelyDisclosable: [['credentialSubject', 'name']] },
      'selectivelyDisclosable',
    ],
    [
      'ldp_vc claims outside credentialSubject',
      { ...ldpBadge, claims: [{ path: ['name'] }] },
      'claims.0.path',
    ],
    ['an unknown cryptosuite', { ...ldpBadge, cryptosuite: 'ecdsa-sd-2023' }, 'cryptosuite'],
    ['an empty claim path', { ...sdJwtBadge, claims: [{ path: [] }] }, 'claims.0.path'],
    [
      'a claim path of a negative index',
      { ...sdJwtBadge, claims: [{ path: ['a', -1] }] },
      'claims.0.path',
    ],
    [
      'a claim path nine deep',
      { ...sdJwtBadge, claims: [{ path: Array(9).fill('a') }] },
      'claims.0.path',
    ],
    [
      'a claim path of an object',
      { ...sdJwtBadge, claims: [{ path: [{ a: 1 }] }] },
      'claims.0.path',
    ],
    [
      'a claim twice',
      { ...sdJwtBadge, claims: [{ path: ['a'] }, { path: ['a'] }] },
      'claims.1.path',
    ],
    ['101 claims', { ...sdJwtBadge, claims: manyClaims(101) }, 'claims'],
    [
      'a claim mandatory as a string',
      { ...sdJwtBadge, claims: [{ path: ['a'], mandatory: 'yes' }] },
      'claims.0.mandatory',
    ],
    [
      'a selectively disclosable path that is no claim',
      { ...sdJwtBadge, selectivelyDisclosable: [['nope']] },
      'selectivelyDisclosable.0',
    ],
    ['a display without name', { ...sdJwtBadge, display: [{ locale: 'en' }] }, 'display.0.name'],
    [
      'a display locale that is no language tag',
      { ...sdJwtBadge, display: [{ name: 'x', locale: 'english please' }] },
      'display.0.locale',
    ],
    [
      'a logo over http',
      { ...sdJwtBadge, display: [{ name: 'x', logo: { uri: 'http://a.example/l.png' } }] },
      'display.0.logo.uri',
    ],
    [
      'a color that is no CSS color',
      { ...sdJwtBadge, display: [{ name: 'x', background_color: 'url(x)' }] },
      'display.0.background_color',
    ],
    ['11 displays', { ...sdJwtBadge, display: Array(11).fill({ name: 'x' }) }, 'display'],
    ['a validity under a minute', { ...sdJwtBadge, expiresInSeconds: 59 }, 'expiresInSeconds'],
    [
      'a validity over five years',
      { ...sdJwtBadge, expiresInSeconds: 157_680_001 },
      'expiresInSeconds',
    ],
    ['revocable as a string', { ...sdJwtBadge, revocable: 'true' }, 'revocable'],
    ['an unknown field', { ...sdJwtBadge, scope: 'badge' }, 'scope'],
  ])('refuses %s with 400 naming the field, storing nothing', async (_case, body, field) => {
    const response = await create('demo', body);

    expectFieldErrors(expectProblem(response, 400, 'VALIDATION_FAILED', `${base}/create`), [field]);
    expect(await count('demo')).toBe(0);
  });

  it('refuses a bad replacement with 400 and keeps the configuration as it was', async () => {
    const created = await service.client().createCredentialConfiguration('demo', sdJwtBadge);
    try {
      const path = `${base}/${sdJwtBadge.id}/update`;
      const response = await service.request(path, {
        method: 'POST',
        headers: { 'x-tenant-id': 'demo' },
        body: { format: 'dc+sd-jwt' },
      });
      expectFieldErrors(expectProblem(response, 400, 'VALIDATION_FAILED', path), ['vct']);
      const unknown = `${base}/Nothing_here/update`;
      const missing = await service.request(unknown, {
        method: 'POST',
        headers: { 'x-tenant-id': 'demo' },
        body: { format: 'dc+sd-jwt', vct: 'x' },
      });
      expectProblem(missing, 404, 'CREDENTIAL_CONFIGURATION_NOT_FOUND', unknown);
      expect(await service.client().getCredentialConfiguration('demo', sdJwtBadge.id)).toEqual(
        created,
      );
    } finally {
      await service.client().deleteCredentialConfiguration('demo', sdJwtBadge.id);
    }
  });

  it('answers 404 for an id that could not be one, and 400 for an unknown sort', async () => {
    const path = `${base}/${encodeURIComponent('a b')}`;
    const odd = await service.request(path, { headers: { 'x-tenant-id': 'demo' } });
    expectProblem(odd, 404, 'CREDENTIAL_CONFIGURATION_NOT_FOUND', path);
    const sorted = await service.request(base, {
      headers: { 'x-tenant-id': 'demo' },
      query: { sort: 'vct' },
    });
    expectFieldErrors(expectProblem(sorted, 400, 'VALIDATION_FAILED', base), ['sort']);
  });

  it('keeps at most 50 configurations per tenant (422)', async () => {
    for (let index = 0; index < 50; index++) {
      expect((await create('full', { ...ldpBadge, id: `badge-${index}` })).status).toBe(201);
    }
    const more = await create('full', { ...ldpBadge, id: 'one-more' });
    expectProblem(more, 422, 'CREDENTIAL_CONFIGURATIONS_LIMIT_REACHED', `${base}/create`);
    expect(await count('full')).toBe(50);
  });
});
