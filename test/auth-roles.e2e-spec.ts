import { expectProblem } from './support/problems.js';
import {} from 'node:crypto';
import {
  postForm,
  tokenPath,
  type ApiResponse,
  type TestService,
  type TokenResponseBody,
} from './support/test-service.js';
import {
  tenantsPath,
  createPath,
  tenantPath,
  updatePath,
  deletePath,
  didPath,
  type Tenant,
  type TenantPage,
  type Problem,
} from './support/api-shapes.js';
import {
  realmPath,
  certsPath,
  discoveryPath,
  documentPath,
  type Claims,
  rs256,
  decodeSegment,
  nowSeconds,
  expectUnauthorized,
  expectNoTokenIn,
  tenantIds,
  tenantLabels,
  useEmbeddedIssuerService,
} from './support/auth-harness.js';

/** What each kind of caller may do (api.md, Authentication and authorization): roles, tenant claims, the order of the checks. */
describe('Authorization with the embedded issuer', () => {
  const harness = useEmbeddedIssuerService();
  const { adminClaims, issuerSigned, strangerKey } = harness;
  let service: TestService;
  let issuerKid: string;
  let issuer: string;
  let adminToken: string;
  let demoToken: string;
  let demoTenant: Tenant;
  beforeAll(() => {
    ({ service, issuerKid, issuer, adminToken, demoToken, demoTenant } = harness.context);
  });

  describe('the order of the checks', () => {
    it('answers 401, not 400, to a tenant-scoped request with neither token nor tenant header', async () => {
      expectUnauthorized(await service.request(didPath, { as: 'anonymous' }), didPath, 'bare');
      expectUnauthorized(
        await service.request(documentPath, { token: 'garbage' }),
        documentPath,
        'invalid_token',
      );
    });

    it('answers 400, not 403, to an agent-user that sends no tenant header or a malformed one', async () => {
      expectProblem(
        await service.request(didPath, { as: 'demo' }),
        400,
        'TENANT_HEADER_MISSING',
        didPath,
      );
      expectProblem(
        await service.request(didPath, {
          as: 'demo',
          headers: { 'x-tenant-id': 'not a tenant!' },
        }),
        400,
        'TENANT_HEADER_INVALID',
        didPath,
      );
    });

    it('answers 401, not 403, to an invalid token on an admin route', async () => {
      const tampered = issuerSigned(adminClaims()).slice(0, -4) + 'AAAA';
      expectUnauthorized(
        await service.request(createPath, {
          method: 'POST',
          token: tampered,
          query: { id: 'nope', label: 'Nope' },
        }),
        createPath,
        'invalid_token',
      );
    });

    it('serves the public routes without a token, and with a broken one', async () => {
      for (const path of [
        '/ctrl/health/live',
        '/ctrl/health/ready',
        '/ctrl/v3/api-docs',
        discoveryPath,
        certsPath,
      ]) {
        expect({
          path,
          status: (await service.request(path, { as: 'anonymous' })).status,
        }).toEqual({ path, status: 200 });
        expect({
          path,
          status: (await service.request(path, { token: 'garbage' })).status,
        }).toEqual({ path, status: 200 });
      }
      const discovery = await service.request<{ issuer: string }>(discoveryPath, {
        as: 'anonymous',
      });
      expect(discovery.body.issuer).toBe(issuer);
    });
  });

  describe('an administrator', () => {
    it('creates, reads, lists, updates and deletes any tenant', async () => {
      const created = await service.request<Tenant>(createPath, {
        method: 'POST',
        query: { id: 'admin-made', label: 'Admin made' },
      });
      expect(created.status).toBe(201);
      const read = await service.request<Tenant>(tenantPath('admin-made'));
      expect(read.body).toMatchObject({ id: 'admin-made', label: 'Admin made' });
      const list = await service.request<TenantPage>(tenantsPath, { query: { size: '100' } });
      expect(list.body.content.map((tenant) => tenant.id)).toEqual(
        expect.arrayContaining(['admin-made', 'demo', 'other', 'orbit']),
      );
      const updated = await service.request<Tenant>(updatePath('admin-made'), {
        method: 'POST',
        query: { label: 'Renamed' },
      });
      expect(updated.status).toBe(200);
      expect((await tenantLabels(service))['admin-made']).toBe('Renamed');
      expect((await service.request(deletePath('admin-made'), { method: 'POST' })).status).toBe(
        204,
      );
      expect(await tenantIds(service)).not.toContain('admin-made');
    });

    it('acts for any tenant, and gets 404 for a tenant that does not exist', async () => {
      for (const tenant of ['demo', 'other']) {
        const did = await service.request<{ id: string }>(didPath, {
          headers: { 'x-tenant-id': tenant },
        });
        expect(did.status).toBe(200);
        const document = await service.request<{ id: string }>(documentPath, {
          headers: { 'x-tenant-id': tenant },
        });
        expect(document.status).toBe(200);
        expect(document.body.id).toBe(did.body.id);
      }
      expectProblem(
        await service.request(didPath, { headers: { 'x-tenant-id': 'ghost' } }),
        404,
        'TENANT_NOT_FOUND',
        didPath,
      );
    });
  });

  describe('an agent-user (demo, tenant_ids [demo])', () => {
    it('reads the DID and DID document of its own tenant', async () => {
      const did = await service.request<{ id: string }>(didPath, {
        as: 'demo',
        headers: { 'x-tenant-id': 'demo' },
      });
      expect(did.status).toBe(200);
      expect(did.body.id).toBe(demoTenant.did);
      const document = await service.request<{ id: string }>(documentPath, {
        as: 'demo',
        headers: { 'x-tenant-id': 'demo' },
      });
      expect(document.status).toBe(200);
      expect(document.body.id).toBe(demoTenant.did);
    });

    it('gets the same 403 for another existing tenant as for one that does not exist', async () => {
      for (const path of [didPath, documentPath]) {
        const existing = await service.request<Problem>(path, {
          as: 'demo',
          headers: { 'x-tenant-id': 'other' },
        });
        const missing = await service.request<Problem>(path, {
          as: 'demo',
          headers: { 'x-tenant-id': 'ghost' },
        });
        expectProblem(existing, 403, 'FORBIDDEN', path);
        expectProblem(missing, 403, 'FORBIDDEN', path);
        expect(missing.body).toEqual({
          ...existing.body,
          detail: existing.body.detail.replaceAll('other', 'ghost'),
        });
        expect([...missing.headers.keys()].sort()).toEqual([...existing.headers.keys()].sort());
      }
    });

    it('lists only its own tenant, however the list is searched or paged', async () => {
      const all = await service.request<TenantPage>(tenantsPath, { as: 'demo' });
      expect(all.status).toBe(200);
      expect(all.body).toMatchObject({ totalElements: 1, totalPages: 1 });
      expect(all.body.content.map((tenant) => tenant.id)).toEqual(['demo']);

      const searched = await service.request<TenantPage>(tenantsPath, {
        as: 'demo',
        query: { q: 'o' },
      });
      expect(searched.body.totalElements).toBe(1);
      expect(searched.body.content.map((tenant) => tenant.id)).toEqual(['demo']);

      const othersOnly = await service.request<TenantPage>(tenantsPath, {
        as: 'demo',
        query: { q: 'other' },
      });
      expect(othersOnly.body).toMatchObject({ content: [], totalElements: 0 });

      const secondPage = await service.request<TenantPage>(tenantsPath, {
        as: 'demo',
        query: { page: '1', size: '1' },
      });
      expect(secondPage.body).toMatchObject({ content: [], totalElements: 1, totalPages: 1 });

      const asAdmin = await service.request<TenantPage>(tenantsPath, { query: { q: 'o' } });
      expect(asAdmin.body.totalElements).toBeGreaterThanOrEqual(3);
    });

    it('reads its own tenant and gets 403 for any other, existing or not', async () => {
      const own = await service.request<Tenant>(tenantPath('demo'), { as: 'demo' });
      expect(own.status).toBe(200);
      expect(own.body.id).toBe('demo');
      const other = await service.request<Problem>(tenantPath('other'), { as: 'demo' });
      const ghost = await service.request<Problem>(tenantPath('ghost'), { as: 'demo' });
      expectProblem(other, 403, 'FORBIDDEN', tenantPath('other'));
      expectProblem(ghost, 403, 'FORBIDDEN', tenantPath('ghost'));
      expect(ghost.body.detail).toBe(other.body.detail.replaceAll('other', 'ghost'));
    });

    it('cannot create, update or delete tenants, its own included, and nothing changes', async () => {
      const before = await tenantLabels(service);
      const attempts: [string, Record<string, string>][] = [
        [createPath, { id: 'sneaky', label: 'Sneaky' }],
        [updatePath('demo'), { label: 'Renamed by demo' }],
        [updatePath('other'), { label: 'Renamed by demo' }],
        [deletePath('demo'), {}],
        [deletePath('other'), {}],
      ];
      for (const [path, query] of attempts) {
        const response = await service.request(path, { as: 'demo', method: 'POST', query });
        expectProblem(response, 403, 'FORBIDDEN', path);
      }
      expect(await tenantLabels(service)).toEqual(before);
    });
  });

  describe('a service account (client_credentials of agent-service)', () => {
    it('acts as an administrator', async () => {
      const grant = await postForm(service.url, tokenPath, {
        grant_type: 'client_credentials',
        client_id: 'agent-service',
        client_secret: 'change-me',
      });
      expect(grant.status).toBe(200);
      const token = (grant.body as TokenResponseBody).access_token;
      const created = await service.request<Tenant>(createPath, {
        method: 'POST',
        token,
        query: { id: 'machine-made', label: 'Machine made' },
      });
      expect(created.status).toBe(201);
      expect(
        (
          await service.request(updatePath('machine-made'), {
            method: 'POST',
            token,
            query: { label: 'Machine renamed' },
          })
        ).status,
      ).toBe(200);
      const list = await service.request<TenantPage>(tenantsPath, {
        token,
        query: { size: '100' },
      });
      expect(list.body.content.map((tenant) => tenant.id)).toEqual(
        expect.arrayContaining(['demo', 'other', 'machine-made']),
      );
      const did = await service.request<{ id: string }>(didPath, {
        token,
        headers: { 'x-tenant-id': 'other' },
      });
      expect(did.status).toBe(200);
      expect(
        (await service.request(deletePath('machine-made'), { method: 'POST', token })).status,
      ).toBe(204);
      expect(await tenantIds(service)).not.toContain('machine-made');
    });
  });

  describe("the issuer's own check of its tokens", () => {
    it('answers userinfo for an access token it issued, and refuses a forged one', async () => {
      const userinfoPath = `${realmPath}/protocol/openid-connect/userinfo`;
      const info = await service.request<Claims>(userinfoPath, { as: 'demo' });
      expect({ status: info.status, body: info.body }).toMatchObject({
        status: 200,
        body: { preferred_username: 'demo', tenant_ids: ['demo'] },
      });
      const forged = await service.request(userinfoPath, {
        token: rs256(strangerKey.privateKey, issuerKid, decodeSegment(demoToken, 1)),
      });
      expect(forged.status).toBe(401);
    });
  });

  describe('tokens in responses', () => {
    it('never appear in a response body or header, whatever the outcome', async () => {
      const expired = issuerSigned(
        adminClaims({ iat: nowSeconds() - 660, exp: nowSeconds() - 60 }),
      );
      const wrongAudience = issuerSigned(adminClaims({ aud: 'account' }));
      const checks: [string, ApiResponse][] = [
        [adminToken, await service.request(tenantsPath)],
        [adminToken, await service.request(tenantsPath, { query: { size: '1000' } })],
        [adminToken, await service.request(tenantsPath, { query: { access_token: adminToken } })],
        [adminToken, await service.request(didPath, { headers: { 'x-tenant-id': 'ghost' } })],
        [adminToken, await service.request(didPath, { headers: { 'x-tenant-id': 'bad id!' } })],
        [adminToken, await service.request('/ctrl/api/v1.0/nowhere')],
        [adminToken, await service.request(tenantsPath, { method: 'DELETE' })],
        [
          adminToken,
          await service.request(createPath, {
            method: 'POST',
            body: '{"id": ',
          }),
        ],
        [demoToken, await service.request(tenantPath('other'), { as: 'demo' })],
        [demoToken, await service.request(didPath, { as: 'demo' })],
        [expired, await service.request(tenantsPath, { token: expired })],
        [wrongAudience, await service.request(tenantsPath, { token: wrongAudience })],
      ];
      for (const [token, response] of checks) {
        expect(response.status).toBeGreaterThanOrEqual(200);
        expectNoTokenIn(response, token);
      }
      expect(checks.map(([, response]) => response.status)).toEqual([
        200, 400, 400, 404, 400, 404, 405, 400, 403, 400, 401, 401,
      ]);
    });
  });
});
