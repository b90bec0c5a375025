import { expectProblem } from './support/problems.js';
import { errorCatalog, problemSlug, type ErrorCode } from '../src/common/problem/error-codes.js';
import { queryDatabase } from './support/database.js';
import { type TestService } from './support/test-service.js';
import {
  tenantsPath,
  createPath,
  didPath,
  type Problem,
  apiOperations,
} from './support/api-shapes.js';
import { useErrorsService } from './support/errors-harness.js';

/** Refused callers and the problem documents themselves (RFC 9457; api.md, Errors). */
describe('error responses: callers and problem documents', () => {
  const harness = useErrorsService();
  let service: TestService;
  beforeAll(() => {
    ({ service } = harness.context);
  });

  describe('refused callers', () => {
    it('answers a request without a token with 401 UNAUTHORIZED, a Bearer challenge and a problem body', async () => {
      const response = await service.request(tenantsPath, { as: 'anonymous' });

      expectProblem(response, 401, 'UNAUTHORIZED', tenantsPath);
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer realm="agent-cloud"/);
    });

    it('answers a forged token with 401 UNAUTHORIZED and error="invalid_token"', async () => {
      const response = await service.request(tenantsPath, { token: 'not.a.token' });

      expectProblem(response, 401, 'UNAUTHORIZED', tenantsPath);
      expect(response.headers.get('www-authenticate')).toMatch(/error="invalid_token"/);
    });

    it('answers an agent-user creating a tenant with 403 FORBIDDEN as a problem', async () => {
      const response = await service.request(createPath, {
        method: 'POST',
        as: 'demo',
        query: { id: 'by-demo', label: 'By demo' },
      });

      expectProblem(response, 403, 'FORBIDDEN', createPath);
      expect(
        await queryDatabase(service.databaseUrl, "SELECT id FROM tenant WHERE id = 'by-demo'"),
      ).toEqual([]);
    });

    it('answers a DID request without x-tenant-id with 400 TENANT_HEADER_MISSING naming the header', async () => {
      const response = await service.request(didPath);

      const problem = expectProblem(response, 400, 'TENANT_HEADER_MISSING', didPath);
      expect(problem.errors).toEqual([{ field: 'x-tenant-id', message: expect.any(String) }]);
    });

    it('answers request headers over the server limit with 431 as a problem', async () => {
      const response = await service.request('/ctrl/health/live', {
        headers: { 'x-padding': 'a'.repeat(20 * 1024) },
      });

      expect(response.status).toBe(431);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(response.body).toMatchObject({ status: 431, instance: '/ctrl/health/live' });
    });
  });

  describe('problem documents', () => {
    it('names the request path, without its query string and still percent-encoded, as the instance', async () => {
      const unknownTenant = await service.request(`${tenantsPath}/no%2Dsuch`, {
        query: { irrelevant: 'x' },
      });
      const badQuery = await service.request(tenantsPath, { query: { size: '0' } });

      expectProblem(unknownTenant, 404, 'TENANT_NOT_FOUND', `${tenantsPath}/no%2Dsuch`);
      expectProblem(badQuery, 400, 'VALIDATION_FAILED', tenantsPath);
    });

    it('names the invalid fields in errors', async () => {
      const response = await service.request(tenantsPath, {
        query: { size: '500', sort: 'colour' },
      });

      const problem = expectProblem(response, 400, 'VALIDATION_FAILED', tenantsPath);
      expect(problem.errors?.map((error) => error.field)).toEqual(
        expect.arrayContaining(['size', 'sort']),
      );
    });

    it('says why a page number is refused: a negative one is below 0, a word is not a number', async () => {
      const negative = await service.request(tenantsPath, { query: { page: '-1' } });
      const word = await service.request(tenantsPath, { query: { page: 'first' } });

      expect(expectProblem(negative, 400, 'VALIDATION_FAILED', tenantsPath).errors).toEqual([
        { field: 'page', message: 'must be 0 or more' },
      ]);
      expect(expectProblem(word, 400, 'VALIDATION_FAILED', tenantsPath).errors).toEqual([
        { field: 'page', message: 'must be a whole number' },
      ]);
    });

    it('gives problems type URLs that answer, without a token, with their code, status and title', async () => {
      const responses = [
        await service.request('/no/such/route'),
        await service.request(tenantsPath, { method: 'PUT' }),
        await service.request(createPath, { method: 'POST', body: '{' }),
        await service.request(createPath, {
          method: 'POST',
          headers: { 'content-type': 'text/plain' },
          body: 'x',
        }),
        await service.request(`${tenantsPath}/no-such-tenant`),
        await service.request(didPath, { headers: { 'x-tenant-id': '-bad' } }),
        await service.request(createPath, {
          method: 'POST',
          query: { id: 'acme', label: 'Again' },
        }),
        await service.request(tenantsPath, { as: 'anonymous' }),
      ];

      const codes = responses.map((response) => (response.body as Problem).code);
      expect(codes).toEqual([
        'ROUTE_NOT_FOUND',
        'METHOD_NOT_ALLOWED',
        'MALFORMED_JSON',
        'UNSUPPORTED_MEDIA_TYPE',
        'TENANT_NOT_FOUND',
        'TENANT_HEADER_INVALID',
        'TENANT_ALREADY_EXISTS',
        'UNAUTHORIZED',
      ]);
      for (const response of responses) {
        const problem = response.body as Problem;
        const type = new URL(problem.type);
        expect(type.origin).toBe(service.publicBaseUrl);
        expect(type.pathname).toBe(`/ctrl/problems/${problemSlug(problem.code as ErrorCode)}`);
        const description = await service.request(type.pathname, { as: 'anonymous' });
        expect(description.status).toBe(200);
        expect(description.body).toEqual({
          code: problem.code,
          status: problem.status,
          title: problem.title,
        });
      }
    });

    it('describes every documented code at /ctrl/problems/<kebab-case code>', async () => {
      for (const [code, entry] of Object.entries(errorCatalog)) {
        const slug = code.toLowerCase().replaceAll('_', '-');
        const response = await service.request(`/ctrl/problems/${slug}`, { as: 'anonymous' });

        expect({ slug, status: response.status, body: response.body }).toEqual({
          slug,
          status: 200,
          body: { code, status: entry.status, title: entry.title },
        });
      }
    });

    it('lists every documented code at /ctrl/problems', async () => {
      const response = await service.request<{ code: string; status: number; title: string }[]>(
        '/ctrl/problems',
        { as: 'anonymous' },
      );

      expect(response.status).toBe(200);
      expect(response.body).toEqual(
        Object.entries(errorCatalog).map(([code, entry]) => ({ code, ...entry })),
      );
    });

    it.each(['no-such-problem', 'TENANT-NOT-FOUND', 'tenant_not_found', 'constructor'])(
      'answers the unknown problem slug %s with 404 PROBLEM_TYPE_NOT_FOUND',
      async (slug) => {
        const response = await service.request(`/ctrl/problems/${slug}`, { as: 'anonymous' });

        expectProblem(response, 404, 'PROBLEM_TYPE_NOT_FOUND', `/ctrl/problems/${slug}`);
      },
    );

    it('uses only codes from the documented list, each with a distinct slug and a 4xx or 5xx status', () => {
      const slugs = Object.keys(errorCatalog).map((code) => problemSlug(code as ErrorCode));

      expect(new Set(slugs).size).toBe(slugs.length);
      for (const [code, entry] of Object.entries(errorCatalog)) {
        expect(code).toMatch(/^[A-Z]+(_[A-Z]+)*$/);
        expect(entry.status).toBeGreaterThanOrEqual(400);
        expect(entry.status).toBeLessThan(600);
        expect(entry.title).not.toBe('');
      }
    });
  });

  describe('health, API explorer and OpenAPI document', () => {
    it('answers GET /ctrl/health/live with 200 {status: ok} without a token', async () => {
      const response = await service.request('/ctrl/health/live', { as: 'anonymous' });

      expect(response.status).toBe(200);
      expect(response.body).toEqual({ status: 'ok' });
    });

    it('answers GET /ctrl/health/ready with 200 {status: ok} without a token while the database is up', async () => {
      const response = await service.request('/ctrl/health/ready', { as: 'anonymous' });

      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ status: 'ok' });
    });

    it('redirects /ctrl/swagger-ui to /ctrl/swagger-ui/, which serves the explorer page', async () => {
      const redirect = await service.request('/ctrl/swagger-ui', { as: 'anonymous' });
      const location = redirect.headers.get('location') ?? '';
      const page = await service.request(new URL(location, service.url).pathname, {
        as: 'anonymous',
      });

      expect([301, 302, 307, 308]).toContain(redirect.status);
      expect(new URL(location, service.url).pathname).toBe('/ctrl/swagger-ui/');
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      expect(page.text).toContain('swagger-ui');
    });

    it('redirects /ctrl/swagger-ui with a query string to the slashed path too, keeping the query', async () => {
      const redirect = await service.request('/ctrl/swagger-ui?filter=Tenants', {
        as: 'anonymous',
      });

      expect([301, 302, 307, 308]).toContain(redirect.status);
      expect(redirect.headers.get('location')).toBe('/ctrl/swagger-ui/?filter=Tenants');
    });

    it('serves the OpenAPI 3 document as JSON at /ctrl/v3/api-docs, with every tenant and DID operation', async () => {
      const response = await service.request<{
        openapi: string;
        paths: Record<string, Record<string, { operationId?: string }>>;
      }>('/ctrl/v3/api-docs', { as: 'anonymous' });

      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(response.body.openapi).toMatch(/^3\./);
      const operations = Object.entries(response.body.paths).flatMap(([path, methods]) =>
        Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
      );
      expect(operations).toEqual(expect.arrayContaining([...apiOperations]));
    });

    it('documents x-tenant-id as a security scheme that the DID operations require, so the explorer sends it', async () => {
      const response = await service.request<{
        paths: Record<string, Record<string, { security?: Record<string, string[]>[] }>>;
        components: {
          securitySchemes: Record<string, { type: string; in?: string; name?: string }>;
        };
      }>('/ctrl/v3/api-docs', { as: 'anonymous' });
      const schemes = response.body.components.securitySchemes;
      const tenantScheme = Object.keys(schemes).find(
        (name) =>
          schemes[name]?.type === 'apiKey' &&
          schemes[name]?.in === 'header' &&
          schemes[name]?.name === 'x-tenant-id',
      );
      expect(tenantScheme).toBeDefined();
      for (const path of ['/ctrl/api/v1.0/did', '/ctrl/api/v1.0/did/document']) {
        const requirements = response.body.paths[path]?.get?.security ?? [];
        expect(requirements.length).toBeGreaterThan(0);
        // Every way to call the operation includes the tenant header.
        for (const requirement of requirements)
          expect(Object.keys(requirement)).toContain(tenantScheme);
      }
    });

    it('documents error responses of the tenant operations as application/problem+json', async () => {
      const response = await service.request<{
        paths: Record<
          string,
          Record<string, { responses?: Record<string, { content?: Record<string, unknown> }> }>
        >;
      }>('/ctrl/v3/api-docs', { as: 'anonymous' });

      const responses = response.body.paths['/ctrl/api/v1.0/tenants/create']?.post?.responses ?? {};
      const errorResponses = Object.entries(responses).filter(([status]) => /^[45]/.test(status));
      expect(errorResponses.map(([status]) => status)).toEqual(
        expect.arrayContaining(['400', '409']),
      );
      for (const [, documented] of errorResponses) {
        expect(Object.keys(documented.content ?? {})).toContain('application/problem+json');
      }
    });
  });
});
