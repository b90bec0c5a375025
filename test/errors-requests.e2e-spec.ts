import { expectProblem } from './support/problems.js';
import { maxBodyBytes } from '../src/common/http-body.js';
import { type ErrorCode } from '../src/common/problem/error-codes.js';
import { type TestService } from './support/test-service.js';
import { tenantsPath, createPath, didPath, type Problem } from './support/api-shapes.js';
import {
  rawRequest,
  asApiResponse,
  jsonBodyOfBytes,
  useErrorsService,
} from './support/errors-harness.js';

/** Requests the service cannot take as they are: unknown routes, wrong methods, broken bodies (api.md, Errors). */
describe('error responses: routes, methods and bodies', () => {
  const harness = useErrorsService();
  const { tenantCount, bearer } = harness;
  let service: TestService;
  beforeAll(() => {
    ({ service } = harness.context);
  });

  describe('unknown routes', () => {
    it.each([
      ['GET', '/ctrl/api/v1.0/nothing'],
      ['GET', '/ctrl/api/v2.0/tenants'],
      ['POST', '/ctrl/api/v1.0/tenants/acme/rename'],
      ['GET', '/ctrl/api/v1.0/did/acme/keys'],
      ['GET', '/index.html'],
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
});
