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
  number: number | null;
  size: number;
  totalElements: number | null;
  totalPages: number | null;
  after: string | null;
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
      // Issued through POST /credentials/issue: no OpenID4VCI offer.
      format: 'ldp_vc',
      doctype: null,
      offerId: null,
      configurationId: null,
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

  it('pages after a cursor as by number, counting nothing, and refuses a cursor it did not give', async () => {
    const all = (await list({ size: '100' })).body.content.map((r) => r.id);
    expect(all).toHaveLength(4);
    const walked: string[] = [];
    let page = await list({ size: '1' });
    expect(page.body).toMatchObject({ number: 0, totalElements: 4 });
    while (page.body.after !== null) {
      walked.push(...page.body.content.map((r) => r.id));
      page = await list({ size: '1', after: page.body.after });
      expect(page.status).toBe(200);
      expect(page.body).toMatchObject({ number: null, totalElements: null, totalPages: null });
    }
    walked.push(...page.body.content.map((r) => r.id));
    expect(walked).toEqual(all);

    // With a filter the cursor continues within it; another tenant's cursor names none of its rows.
    const firstActive = await list({ status: 'active', size: '1' });
    const nextActive = await list({ status: 'active', size: '1', after: firstActive.body.after! });
    expect(nextActive.body.content.map((r) => r.state)).toEqual(['active']);
    expect(nextActive.body.after).toBeNull();
    const elsewhere = await list({ size: '1', after: firstActive.body.after! }, 'other');
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.body.content.every((r) => !all.includes(r.id))).toBe(true);

    const forged = Buffer.from(JSON.stringify(['yesterday', 'x'])).toString('base64url');
    const refused: Record<string, string>[] = [
      { after: forged },
      { after: 'not base64!' },
      { after: Buffer.from('[1,2]').toString('base64url') },
      { after: Buffer.from('["2026-11-25T10:00:00.000000Z","a\u0000"]').toString('base64url') },
      { after: firstActive.body.after!, page: '2' },
    ];
    for (const query of refused) {
      expectProblem(await list(query), 400, 'VALIDATION_FAILED', listPath);
    }
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
