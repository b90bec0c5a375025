import { expectFieldErrors, expectProblem } from './support/problems.js';
import { startTestService, type TestService } from './support/test-service.js';
import {
  alumniCredential,
  issue,
  makeHolder,
  verifyPath,
  type Json,
} from './support/credentials-harness.js';

const base = '/ctrl/api/v1.0/trusted-issuers';
const presentationsPath = '/ctrl/api/v1.0/presentations/verify';

/**
 * A tenant's trusted issuers list over real HTTP and PostgreSQL: its routes and their access rules,
 * tenant isolation, bounds, and how credential and presentation verification apply it.
 */
describe('Trusted issuers', () => {
  let service: TestService;
  let demoDid: string;
  let otherDid: string;

  beforeAll(async () => {
    service = await startTestService();
    demoDid = (await service.client().createTenant({ id: 'demo', label: 'Demo' })).did;
    otherDid = (await service.client().createTenant({ id: 'other', label: 'Other' })).did;
    for (const id of ['verifier', 'full']) await service.client().createTenant({ id, label: id });
  });
  afterAll(() => service.close());

  const create = (tenantId: string, body: unknown, as: 'admin' | 'demo' = 'admin') =>
    service.request<Json>(`${base}/create`, {
      method: 'POST',
      as,
      headers: { 'x-tenant-id': tenantId },
      body,
    });
  const verify = (tenantId: string, verifiableCredential: Json, options?: Json) =>
    service.request<Json>(verifyPath, {
      method: 'POST',
      headers: { 'x-tenant-id': tenantId },
      body: options === undefined ? { verifiableCredential } : { verifiableCredential, options },
    });
  const credentialOf = async (tenantId: string) =>
    (await issue(service, tenantId, alumniCredential())).body.verifiableCredential;
  const details = (body: Json) =>
    (body.problemDetails as { check: string; detail: string }[]).map(
      ({ check, detail }) => `${check}: ${detail}`,
    );

  describe('the list', () => {
    it('adds, reads, lists and removes an issuer (an agent-user for its own tenant)', async () => {
      const client = service.client('demo');
      const added = await client.createTrustedIssuer('demo', {
        issuer: 'did:example:university',
        description: 'The School of Examples',
      });
      expect(added).toMatchObject({
        tenantId: 'demo',
        issuer: 'did:example:university',
        description: 'The School of Examples',
      });
      expect(await client.getTrustedIssuer('demo', added.id)).toEqual(added);
      const page = await client.listTrustedIssuers('demo', { sort: 'issuer,asc', size: 10 });
      expect(page).toMatchObject({ number: 0, size: 10, totalElements: 1, totalPages: 1 });
      expect(page.content).toEqual([added]);

      await client.deleteTrustedIssuer('demo', added.id);
      const gone = await service.request(`${base}/${added.id}`, {
        headers: { 'x-tenant-id': 'demo' },
      });
      expectProblem(gone, 404, 'TRUSTED_ISSUER_NOT_FOUND', `${base}/${added.id}`);
    });

    it('keeps tenants apart: another tenant cannot read or delete an entry (404), nor list it', async () => {
      const { id } = (await create('demo', { issuer: 'did:example:private' })).body as {
        id: string;
      };
      try {
        for (const [path, method] of [
          [`${base}/${id}`, 'GET'],
          [`${base}/${id}/delete`, 'POST'],
        ] as const) {
          const response = await service.request(path, {
            method,
            headers: { 'x-tenant-id': 'other' },
          });
          expectProblem(response, 404, 'TRUSTED_ISSUER_NOT_FOUND', path);
        }
        const listed = await service.client().listTrustedIssuers('other');
        expect(listed.content.map((entry) => entry.id)).not.toContain(id);
        expect((await service.client().getTrustedIssuer('demo', id)).id).toBe(id);
      } finally {
        await service.client().deleteTrustedIssuer('demo', id);
      }
    });

    it('refuses a missing, malformed or foreign tenant header, and an unknown tenant', async () => {
      const body = { issuer: 'did:example:x' };
      const missing = await service.request(`${base}/create`, { method: 'POST', body });
      expectProblem(missing, 400, 'TENANT_HEADER_MISSING', `${base}/create`);
      const malformed = await create('../demo', body);
      expectProblem(malformed, 400, 'TENANT_HEADER_INVALID', `${base}/create`);
      const foreign = await create('other', body, 'demo');
      expectProblem(foreign, 403, 'FORBIDDEN', `${base}/create`);
      const foreignList = await service.request(base, {
        as: 'demo',
        headers: { 'x-tenant-id': 'other' },
      });
      expectProblem(foreignList, 403, 'FORBIDDEN', base);
      const unknown = await create('nobody', body);
      expectProblem(unknown, 404, 'TENANT_NOT_FOUND', `${base}/create`);
      const anonymous = await service.request(base, {
        as: 'anonymous',
        headers: { 'x-tenant-id': 'demo' },
      });
      expectProblem(anonymous, 401, 'UNAUTHORIZED', base);
      expect((await service.client().listTrustedIssuers('other')).totalElements).toBe(0);
    });

    it.each<[string, unknown, string]>([
      ['no issuer', { description: 'x' }, 'issuer'],
      ['an issuer that is not a URL', { issuer: 'university' }, 'issuer'],
      ['an issuer over 2,048 characters', { issuer: `did:example:${'a'.repeat(2048)}` }, 'issuer'],
      ['an issuer that is not a string', { issuer: 7 }, 'issuer'],
      [
        'a description over 500 characters',
        { issuer: 'did:example:a', description: 'd'.repeat(501) },
        'description',
      ],
      ['an unknown field', { issuer: 'did:example:a', trusted: true }, 'trusted'],
    ])('refuses %s with 400, adding nothing', async (_case, body, field) => {
      const response = await create('demo', body);

      expectFieldErrors(expectProblem(response, 400, 'VALIDATION_FAILED', `${base}/create`), [
        field,
      ]);
      expect((await service.client().listTrustedIssuers('demo')).totalElements).toBe(0);
    });

    it('answers 404 for an id that is not a UUID, and 400 for an unknown sort', async () => {
      const path = `${base}/not-a-uuid`;
      expectProblem(
        await service.request(path, { headers: { 'x-tenant-id': 'demo' } }),
        404,
        'TRUSTED_ISSUER_NOT_FOUND',
        path,
      );
      const sorted = await service.request(base, {
        headers: { 'x-tenant-id': 'demo' },
        query: { sort: 'tenantId' },
      });
      expectFieldErrors(expectProblem(sorted, 400, 'VALIDATION_FAILED', base), ['sort']);
    });

    it('refuses an issuer listed already with 409', async () => {
      const first = await create('verifier', { issuer: 'did:example:twice' });
      const second = await create('verifier', { issuer: 'did:example:twice' });

      expect(first.status).toBe(201);
      expectProblem(second, 409, 'TRUSTED_ISSUER_ALREADY_EXISTS', `${base}/create`);
      await service.client().deleteTrustedIssuer('verifier', String(first.body.id));
    });

    it('keeps at most 100 per tenant: the 101st is 422, even when sent at once', async () => {
      const sent = await Promise.all(
        Array.from({ length: 104 }, (_, index) =>
          create('full', { issuer: `did:example:${index}` }),
        ),
      );

      expect(sent.filter((response) => response.status === 201)).toHaveLength(100);
      for (const refused of sent.filter((response) => response.status !== 201)) {
        expectProblem(refused, 422, 'TRUSTED_ISSUERS_LIMIT_REACHED', `${base}/create`);
      }
      expect((await service.client().listTrustedIssuers('full')).totalElements).toBe(100);
    });
  });

  describe('verification', () => {
    it('without a list accepts any issuer whose key resolves, and names it', async () => {
      const response = await verify('verifier', await credentialOf('other'));

      expect(response.status).toBe(200);
      expect(response.body.issuer).toBe(otherDid);
    });

    it("applies the tenant's list: anyone else fails the issuer check as untrusted", async () => {
      const fromOther = await credentialOf('other');
      const fromDemo = await credentialOf('demo');
      const { id } = (await create('verifier', { issuer: otherDid })).body as { id: string };
      try {
        expect((await verify('verifier', fromOther)).status).toBe(200);
        const refused = await verify('verifier', fromDemo);
        expect(refused.status).toBe(422);
        expect(details(refused.body)).toEqual([
          `issuer: untrusted issuer: '${demoDid}' is not in the trusted issuers list`,
        ]);
        // Another tenant's list never applies here, nor this one's there.
        expect((await verify('demo', fromDemo)).status).toBe(200);
      } finally {
        await service.client().deleteTrustedIssuer('verifier', id);
      }
      expect((await verify('verifier', fromDemo)).status).toBe(200);
    });

    it("lets the request's options.trustedIssuers win over the tenant's list", async () => {
      const fromDemo = await credentialOf('demo');
      const { id } = (await create('verifier', { issuer: otherDid })).body as { id: string };
      try {
        const asked = await verify('verifier', fromDemo, { trustedIssuers: [demoDid] });
        expect(asked.status).toBe(200);
        const none = await verify('verifier', fromDemo, { trustedIssuers: [] });
        expect(none.status).toBe(422);
        const withChecks = await verify('verifier', await credentialOf('other'), {
          checks: ['proof'],
          trustedIssuers: [demoDid],
        });
        expect(details(withChecks.body)).toEqual([
          `issuer: untrusted issuer: '${otherDid}' is not in the trusted issuers list`,
        ]);
      } finally {
        await service.client().deleteTrustedIssuer('verifier', id);
      }
    });

    it.each<[string, unknown]>([
      ['more than 100 issuers', Array.from({ length: 101 }, (_, index) => `did:example:${index}`)],
      ['an issuer over 2,048 characters', [`did:example:${'a'.repeat(2048)}`]],
      ['an issuer that is not a URL', ['university']],
      ['a list that is a string', 'did:example:not-a-list'],
    ])('refuses options.trustedIssuers with %s (400)', async (_case, trustedIssuers) => {
      const response = await verify('verifier', await credentialOf('demo'), { trustedIssuers });

      expectFieldErrors(expectProblem(response, 400, 'VALIDATION_FAILED', verifyPath), [
        'options.trustedIssuers',
      ]);
    });

    it("applies to a presentation's credentials, and names their issuers", async () => {
      const holder = makeHolder();
      const presentation = await holder.present(
        [await credentialOf('demo'), await credentialOf('other')],
        'c-1',
      );
      const present = (options: Json) =>
        service.request<Json>(presentationsPath, {
          method: 'POST',
          headers: { 'x-tenant-id': 'verifier' },
          body: { verifiablePresentation: presentation, options },
        });

      const open = await present({ challenge: 'c-1' });
      expect(open.status).toBe(200);
      expect((open.body.credentials as Json[]).map((one) => one.issuer)).toEqual([
        demoDid,
        otherDid,
      ]);
      const narrowed = await present({ challenge: 'c-1', trustedIssuers: [otherDid] });
      expect(narrowed.status).toBe(422);
      expect(details(narrowed.body)).toEqual([
        `credential: verifiablePresentation.verifiableCredential[0]: issuer: untrusted issuer: '${demoDid}' is not in the trusted issuers list`,
      ]);
      const { id } = (await create('verifier', { issuer: demoDid })).body as { id: string };
      try {
        const byTenant = await present({ challenge: 'c-1' });
        expect(details(byTenant.body)).toEqual([
          `credential: verifiablePresentation.verifiableCredential[1]: issuer: untrusted issuer: '${otherDid}' is not in the trusted issuers list`,
        ]);
      } finally {
        await service.client().deleteTrustedIssuer('verifier', id);
      }
    });
  });
});
