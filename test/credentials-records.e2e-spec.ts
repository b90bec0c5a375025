import { expectProblem } from './support/problems.js';
import { startTestService, type TestService } from './support/test-service.js';
import { alumniCredential, issue } from './support/credentials-harness.js';

const listPath = '/ctrl/api/v1.0/credentials';

interface RecordBody {
  id: string;
  types: string[];
  cryptosuite: string;
  issuedAt: string;
  state: string;
  status: {
    statusPurpose: string;
    statusListCredential: string;
    statusListIndex: string;
    set: boolean;
  }[];
}
interface PageBody {
  content: RecordBody[];
  number: number;
  size: number;
  totalElements: number;
  totalPages: number;
}

/** The tenant's issuance records: real HTTP, real PostgreSQL. */
describe('Credentials: issuance records', () => {
  let service: TestService;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    service = await startTestService();
    await service.client().createTenant({ id: 'demo', label: 'Demo' });
    await service.client().createTenant({ id: 'other', label: 'Other' });
    const both = {
      credentialStatus: [
        { type: 'BitstringStatusListEntry', statusPurpose: 'revocation' },
        { type: 'BitstringStatusListEntry', statusPurpose: 'suspension' },
      ],
    };
    for (const name of ['active', 'suspended', 'revoked']) {
      const response = await issue(service, 'demo', alumniCredential(), both);
      ids[name] = response.body.verifiableCredential.id as string;
    }
    const degree = alumniCredential({ type: ['VerifiableCredential', 'DegreeCredential'] });
    ids.degree = (await issue(service, 'demo', degree, { credentialStatus: [] })).body
      .verifiableCredential.id as string;
    await issue(service, 'other', alumniCredential());
    for (const [name, purpose] of [
      ['suspended', 'suspension'],
      ['revoked', 'revocation'],
      ['revoked', 'suspension'],
    ]) {
      const answer = await service.request('/ctrl/api/v1.0/credentials/status', {
        method: 'POST',
        headers: { 'x-tenant-id': 'demo' },
        body: {
          credentialId: ids[name],
          credentialStatus: { type: 'BitstringStatusListEntry', statusPurpose: purpose },
        },
      });
      expect(answer.status).toBe(204);
    }
  });
  afterAll(() => service.close());

  const list = (
    query: Record<string, string> = {},
    tenantId = 'demo',
    as: 'admin' | 'demo' = 'admin',
  ) => service.request<PageBody>(listPath, { query, as, headers: { 'x-tenant-id': tenantId } });

  it('lists the tenant’s credentials newest first, with their states and no claims', async () => {
    const response = await list();

    expect(response.status).toBe(200);
    expect(response.body.totalElements).toBe(4);
    expect(response.body.content.map((record) => record.id)).toEqual([
      ids.degree,
      ids.revoked,
      ids.suspended,
      ids.active,
    ]);
    expect(response.body.content.map((record) => record.state)).toEqual([
      'active',
      'revoked',
      'suspended',
      'active',
    ]);
    const revoked = response.body.content[1];
    expect(revoked).toEqual({
      id: ids.revoked,
      types: ['VerifiableCredential', 'AlumniCredential'],
      cryptosuite: 'eddsa-rdfc-2022',
      issuedAt: expect.any(String),
      state: 'revoked',
      status: [
        expect.objectContaining({ statusPurpose: 'revocation', set: true }),
        expect.objectContaining({ statusPurpose: 'suspension', set: true }),
      ],
    });
    expect(response.text).not.toContain('The School of Examples');
  });

  it('filters by type and by state, and pages', async () => {
    expect((await list({ type: 'DegreeCredential' })).body.content.map((r) => r.id)).toEqual([
      ids.degree,
    ]);
    expect((await list({ status: 'suspended' })).body.content.map((r) => r.id)).toEqual([
      ids.suspended,
    ]);
    expect((await list({ status: 'active' })).body.totalElements).toBe(2);
    const second = await list({ page: '1', size: '3' });
    expect(second.body).toMatchObject({ number: 1, size: 3, totalElements: 4, totalPages: 2 });
    expect(second.body.content.map((r) => r.id)).toEqual([ids.active]);

    const refused = await list({ status: 'lost' });
    expectProblem(refused, 400, 'VALIDATION_FAILED', listPath);
  });

  it('answers one record by its id, and 404 for another tenant’s or an unknown one', async () => {
    const path = `${listPath}/${encodeURIComponent(ids.suspended)}`;
    const one = await service.request<RecordBody>(path, { headers: { 'x-tenant-id': 'demo' } });
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ id: ids.suspended, state: 'suspended' });

    const elsewhere = await service.request(path, { headers: { 'x-tenant-id': 'other' } });
    expectProblem(elsewhere, 404, 'CREDENTIAL_NOT_FOUND', path);
  });

  it('lists and reads through the typed client', async () => {
    const client = service.client('demo');
    const page = await client.listCredentials('demo', { status: 'revoked' });
    expect(page.content.map((record) => record.id)).toEqual([ids.revoked]);
    expect((await client.getCredential('demo', ids.active)).state).toBe('active');
  });

  it('shows a tenant only its own records', async () => {
    const asDemoUser = await list({}, 'other', 'demo');
    expectProblem(asDemoUser, 403, 'FORBIDDEN', listPath);
    expect((await list({}, 'other')).body.totalElements).toBe(1);
    expectProblem(await list({}, 'nobody'), 404, 'TENANT_NOT_FOUND', listPath);
  });
});
