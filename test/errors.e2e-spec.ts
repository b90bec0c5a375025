import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { maxBodyBytes } from '../src/common/http-body.js';
import { errorCatalog, problemSlug, type ErrorCode } from '../src/common/problem/error-codes.js';
import { queryDatabase } from './support/database.js';
import { startTestService, type ApiResponse, type TestService } from './support/test-service.js';
import { tenantsPath, createPath, didPath, type Problem } from './support/api-shapes.js';

/**
 * Every error is an RFC 9457 problem document (api.md, Errors): unknown routes, wrong methods, bad
 * bodies, refused callers. Plus the public surface around it: health, the API explorer and OpenAPI.
 */

const problemKeys = ['type', 'title', 'status', 'detail', 'instance', 'code', 'errors'];

interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

interface RawRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  /** Written as one piece, or piece by piece when chunked (no content-length). */
  body?: string | string[];
}

/** A request with full control over method, headers and framing, for what fetch will not send. */
function rawRequest(baseUrl: string, request: RawRequest): Promise<RawResponse> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        method: request.method,
        path: request.path,
        headers: request.headers,
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, text }),
        );
        response.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    const pieces = typeof request.body === 'string' ? [request.body] : (request.body ?? []);
    for (const piece of pieces) outgoing.write(piece);
    outgoing.end();
  });
}

/** A raw response in the shape of the harness's, so that one assertion serves both. */
function asApiResponse(raw: RawResponse): ApiResponse {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  const json = /json/.test(headers.get('content-type') ?? '') && raw.text !== '';
  return {
    status: raw.status,
    headers,
    body: json ? (JSON.parse(raw.text) as unknown) : raw.text,
    text: raw.text,
  };
}

/** A JSON body of exactly `bytes` bytes: a create request whose label is padding. */
function jsonBodyOfBytes(bytes: number): string {
  const frame = JSON.stringify({ id: 'padded', label: '' });
  return JSON.stringify({ id: 'padded', label: 'a'.repeat(bytes - frame.length) });
}

describe('error responses', () => {
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService();
    const created = await service.request(createPath, {
      method: 'POST',
      query: { id: 'acme', label: 'ACME Corp' },
    });
    expect(created.status).toBe(201);
  });

  afterAll(async () => {
    await service.close();
  });

  /**
   * The response is a complete problem document with this status and code: problem+json, not cached,
   * every member present, `status` equal to the HTTP status, `instance` the request path, a catalogued
   * code whose `type` URL ends in its kebab-case slug, and nothing that looks like a stack trace.
   */
  function expectProblem(
    response: ApiResponse,
    status: number,
    code: ErrorCode,
    instance: string,
  ): Problem {
    expect({ status: response.status, code: (response.body as Partial<Problem>).code }).toEqual({
      status,
      code,
    });
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const problem = response.body as Problem;
    expect(problem).toEqual(
      expect.objectContaining({
        type: `${service.publicBaseUrl}/ctrl/problems/${problemSlug(code)}`,
        title: errorCatalog[code].title,
        status,
        detail: expect.any(String),
        instance,
        code,
      }),
    );
    expect(problem.detail).not.toBe('');
    expect(problemKeys).toEqual(expect.arrayContaining(Object.keys(problem)));
    expect(errorCatalog[code].status).toBe(status);
    expect(response.text).not.toMatch(/\n\s+at |node_modules|\.ts:\d+|QueryFailedError/);
    return problem;
  }

  async function tenantCount(): Promise<number> {
    const [row] = await queryDatabase<{ count: string }>(
      service.databaseUrl,
      'SELECT count(*) AS count FROM tenant',
    );
    return Number(row.count);
  }

  async function bearer(): Promise<string> {
    return `Bearer ${await service.tokenFor('admin')}`;
  }

  describe('unknown routes', () => {
    it.each([
      ['GET', '/ctrl/api/v1.0/nothing'],
      ['GET', '/ctrl/api/v2.0/tenants'],
      ['POST', '/ctrl/api/v1.0/tenants/acme/rename'],
      ['GET', '/ctrl/api/v1.0/did/acme/keys'],
      ['GET', '/'],
      ['GET', '/ctrl'],
      ['GET', '/no/such/page.html'],
      ['DELETE', '/favicon.ico'],
    ])('answers %s %s with 404 ROUTE_NOT_FOUND', async (method, path) => {
      const response = await service.request(path, { method });

      expectProblem(response, 404, 'ROUTE_NOT_FOUND', path);
    });

    it('answers HEAD on an unknown route with 404 and the problem headers, without a body', async () => {
      const response = await service.request('/no/such/page', { method: 'HEAD' });

      expect(response.status).toBe(404);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(response.text).toBe('');
    });

    it('answers an unknown route without a token with 404 as well', async () => {
      const response = await service.request('/ctrl/api/v1.0/nothing', { as: 'anonymous' });

      expectProblem(response, 404, 'ROUTE_NOT_FOUND', '/ctrl/api/v1.0/nothing');
    });
  });

  describe('wrong methods', () => {
    it.each([
      ['PUT', tenantsPath, 'GET, HEAD'],
      ['DELETE', `${tenantsPath}/acme`, 'GET, HEAD'],
      ['PATCH', `${tenantsPath}/acme/update`, 'POST'],
      ['GET', `${tenantsPath}/acme/delete`, 'POST'],
      ['GET', `${tenantsPath}/acme/update`, 'POST'],
      ['POST', didPath, 'GET, HEAD'],
      ['DELETE', '/ctrl/health/ready', 'GET, HEAD'],
      ['POST', '/ctrl/problems/tenant-not-found', 'GET, HEAD'],
      ['POST', '/ctrl/v3/api-docs', 'GET, HEAD'],
      ['GET', '/auth/realms/agent-cloud/protocol/openid-connect/token', 'OPTIONS, POST'],
    ])('answers %s %s with 405 METHOD_NOT_ALLOWED and Allow: %s', async (method, path, allowed) => {
      const response = await service.request(path, { method });

      expectProblem(response, 405, 'METHOD_NOT_ALLOWED', path);
      expect(response.headers.get('allow')?.split(/,\s*/).sort()).toEqual(
        allowed.split(', ').sort(),
      );
    });

    it('answers a method fetch will not send (TRACE) with 405 and Allow too', async () => {
      const raw = await rawRequest(service.url, {
        method: 'TRACE',
        path: tenantsPath,
        headers: { authorization: await bearer() },
      });

      expectProblem(asApiResponse(raw), 405, 'METHOD_NOT_ALLOWED', tenantsPath);
      expect(raw.headers.allow).toBe('GET, HEAD');
    });

    it('does not delete a tenant on a GET of its delete path', async () => {
      const response = await service.request(`${tenantsPath}/acme/delete`);

      expectProblem(response, 405, 'METHOD_NOT_ALLOWED', `${tenantsPath}/acme/delete`);
      expect((await service.request(`${tenantsPath}/acme`)).status).toBe(200);
    });
  });

  describe('request bodies', () => {
    it.each([
      ['a truncated object', '{"id":"broken","label":"x"'],
      ['a missing value', '{"id":}'],
      ['single quotes', "{'id':'broken','label':'x'}"],
      ['a trailing comma', '{"id":"broken","label":"x",}'],
      ['a stray closing brace', '{"id":"broken","label":"x"}}'],
      ['a bad escape', '{"id":"broken","label":"\\x"}'],
      ['a bare word', 'broken'],
      ['NaN', '{"id":"broken","label":NaN}'],
    ])('refuses %s with 400 MALFORMED_JSON and stores nothing', async (_name, body) => {
      const before = await tenantCount();
      const response = await service.request(createPath, { method: 'POST', body });

      expectProblem(response, 400, 'MALFORMED_JSON', createPath);
      expect(await tenantCount()).toBe(before);
    });

    it('refuses malformed JSON on update with 400 MALFORMED_JSON, keeping the tenant as it was', async () => {
      const response = await service.request(`${tenantsPath}/acme/update`, {
        method: 'POST',
        body: '{"label":',
      });

      expectProblem(response, 400, 'MALFORMED_JSON', `${tenantsPath}/acme/update`);
      expect((await service.request<{ label: string }>(`${tenantsPath}/acme`)).body.label).toBe(
        'ACME Corp',
      );
    });

    it.each([
      ['an array', '[{"id":"not-object","label":"x"}]'],
      ['an empty array', '[]'],
      ['a string', '"not-object"'],
      ['a number', '42'],
      ['true', 'true'],
      ['null', 'null'],
    ])('refuses a JSON body that is %s rather than an object with 400', async (_name, body) => {
      const before = await tenantCount();
      const response = await service.request(createPath, {
        method: 'POST',
        query: { id: 'not-object', label: 'Not an object' },
        body,
      });

      const code = (response.body as Partial<Problem>).code;
      expect(['MALFORMED_JSON', 'VALIDATION_FAILED']).toContain(code);
      expectProblem(response, 400, code as ErrorCode, createPath);
      expect(await tenantCount()).toBe(before);
    });

    it('refuses a body over 100 kB sent with a content-length with 413 PAYLOAD_TOO_LARGE', async () => {
      const before = await tenantCount();
      const response = await service.request(createPath, {
        method: 'POST',
        body: jsonBodyOfBytes(150 * 1024),
      });

      expectProblem(response, 413, 'PAYLOAD_TOO_LARGE', createPath);
      expect(await tenantCount()).toBe(before);
    });

    it('refuses a body over 100 kB sent in chunks without a content-length with 413 PAYLOAD_TOO_LARGE', async () => {
      const body = jsonBodyOfBytes(150 * 1024);
      const chunks = body.match(/[^]{1,16384}/g) ?? [];
      const raw = await rawRequest(service.url, {
        method: 'POST',
        path: createPath,
        headers: {
          authorization: await bearer(),
          'content-type': 'application/json',
          'transfer-encoding': 'chunked',
        },
        body: chunks,
      });

      expect(chunks.length).toBeGreaterThan(1);
      expectProblem(asApiResponse(raw), 413, 'PAYLOAD_TOO_LARGE', createPath);
    });

    it('reads a body of exactly the limit and refuses one byte more', async () => {
      const atLimit = await service.request(createPath, {
        method: 'POST',
        body: jsonBodyOfBytes(maxBodyBytes),
      });
      const overLimit = await service.request(createPath, {
        method: 'POST',
        body: jsonBodyOfBytes(maxBodyBytes + 1),
      });

      // The label is far too long, but that is only found out by reading the body.
      expect(maxBodyBytes).toBe(100 * 1024);
      expectProblem(atLimit, 400, 'VALIDATION_FAILED', createPath);
      expectProblem(overLimit, 413, 'PAYLOAD_TOO_LARGE', createPath);
    });

    it.each([
      ['text/plain', 'id=typed&label=Typed'],
      ['application/x-www-form-urlencoded', 'id=typed&label=Typed'],
      [
        'multipart/form-data; boundary=xyz',
        '--xyz\r\nContent-Disposition: form-data; name="id"\r\n\r\ntyped\r\n--xyz--',
      ],
      ['application/xml', '<tenant><id>typed</id></tenant>'],
      ['text/html', '<p>typed</p>'],
    ])(
      'refuses a %s body with 415 UNSUPPORTED_MEDIA_TYPE and stores nothing',
      async (contentType, body) => {
        const before = await tenantCount();
        const response = await service.request(createPath, {
          method: 'POST',
          query: { id: 'typed', label: 'Typed' },
          headers: { 'content-type': contentType },
          body,
        });

        expectProblem(response, 415, 'UNSUPPORTED_MEDIA_TYPE', createPath);
        expect(await tenantCount()).toBe(before);
      },
    );

    it('refuses a text/plain body on update with 415, keeping the tenant as it was', async () => {
      const response = await service.request(`${tenantsPath}/acme/update`, {
        method: 'POST',
        headers: { 'content-type': 'text/plain' },
        body: '{"label":"Changed"}',
      });

      expectProblem(response, 415, 'UNSUPPORTED_MEDIA_TYPE', `${tenantsPath}/acme/update`);
      expect((await service.request<{ label: string }>(`${tenantsPath}/acme`)).body.label).toBe(
        'ACME Corp',
      );
    });

    it('refuses a body without any content type with 415', async () => {
      const raw = await rawRequest(service.url, {
        method: 'POST',
        path: `${createPath}?id=untyped&label=Untyped`,
        headers: { authorization: await bearer(), 'content-length': '2' },
        body: '{}',
      });

      expectProblem(asApiResponse(raw), 415, 'UNSUPPORTED_MEDIA_TYPE', createPath);
    });

    it('refuses JSON in a charset other than UTF-8 with 415', async () => {
      const response = await service.request(createPath, {
        method: 'POST',
        headers: { 'content-type': 'application/json; charset=iso-8859-1' },
        body: '{"id":"latin","label":"Latin"}',
      });

      expectProblem(response, 415, 'UNSUPPORTED_MEDIA_TYPE', createPath);
    });

    it('accepts a JSON media type with a +json suffix', async () => {
      const response = await service.request(createPath, {
        method: 'POST',
        headers: { 'content-type': 'application/merge-patch+json' },
        body: '{"id":"suffixed","label":"Suffixed"}',
      });

      expect(response.status).toBe(201);
    });
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
      expect(operations).toEqual(
        expect.arrayContaining([
          'POST /ctrl/api/v1.0/tenants/create',
          'POST /ctrl/api/v1.0/tenants/{id}/update',
          'POST /ctrl/api/v1.0/tenants/{id}/delete',
          'GET /ctrl/api/v1.0/tenants',
          'GET /ctrl/api/v1.0/tenants/{id}',
          'GET /ctrl/api/v1.0/did',
          'GET /ctrl/api/v1.0/did/document',
        ]),
      );
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
