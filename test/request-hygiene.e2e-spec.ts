import { expectSocketProblem } from './support/problems.js';
import { exchange } from './support/raw-socket.js';
import { postForm, startTestService, tokenPath, type TestService } from './support/test-service.js';

/**
 * Requests that are well-formed enough to reach the service but not to be taken as they are: each gets a
 * problem that says what is wrong, and nothing is stored.
 */

const createPath = '/ctrl/api/v1.0/tenants/create';

describe('request hygiene', () => {
  let service: TestService;
  let authorization: string;

  beforeAll(async () => {
    service = await startTestService();
    authorization = `Bearer ${await service.tokenFor('admin')}`;
  });

  afterAll(async () => {
    await service.close();
  });

  /** A POST whose body bytes are sent exactly as given. */
  function post(path: string, body: Buffer, headers: Record<string, string> = {}) {
    const head = Object.entries({
      host: 'localhost',
      authorization,
      'content-type': 'application/json',
      'content-length': String(body.length),
      connection: 'close',
      ...headers,
    })
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    return exchange(
      service.url,
      Buffer.concat([Buffer.from(`POST ${path} HTTP/1.1\r\n${head}\r\n`), body]),
    );
  }

  async function stored(id: string): Promise<number> {
    return (await service.request(`/ctrl/api/v1.0/tenants/${id}`)).status;
  }

  it.each([
    ['arrays', '['.repeat(40_000) + ']'.repeat(40_000)],
    ['objects', '{"a":'.repeat(15_000) + '1' + '}'.repeat(15_000)],
    ['a field nested too deep', `{"id":"deep","label":${'['.repeat(100)}${']'.repeat(100)}}`],
  ])('refuses JSON %s nested beyond the bound with 400, not 500', async (_shape, body) => {
    const problem = expectSocketProblem(
      await post(createPath, Buffer.from(body)),
      400,
      'VALIDATION_FAILED',
    );
    expect(problem.detail).toMatch(/nested more than 32 levels/);
    expect(await stored('deep')).toBe(404);
  });

  it('refuses a body of more values than the bound before validating it, and stores nothing', async () => {
    // 100 kB of empty objects: validation would copy each before refusing the unknown field.
    const body = { id: 'many', label: 'Many', junk: Array.from({ length: 30_000 }, () => ({})) };
    const problem = expectSocketProblem(
      await post(createPath, Buffer.from(JSON.stringify(body))),
      400,
      'VALIDATION_FAILED',
    ) as { errors?: unknown };
    expect(problem.errors).toEqual([{ field: 'body', message: 'has more than 2000 JSON values' }]);
    expect(await stored('many')).toBe(404);
  });

  it('refuses a JSON body that is not valid UTF-8, and stores nothing', async () => {
    const body = Buffer.concat([
      Buffer.from('{"id":"latin","label":"caf'),
      Buffer.from([0xe9]),
      Buffer.from('"}'),
    ]);
    const problem = expectSocketProblem(await post(createPath, body), 400, 'MALFORMED_JSON');
    expect(problem.detail).toMatch(/UTF-8/);
    expect(await stored('latin')).toBe(404);
  });

  it.each([
    ['label=caf%E9', 'label'],
    ['label=%FF%FE', 'label'],
    ['label=ok&imageUrl=https%3A%2F%2Fexample.com%2F%C0%AF', 'imageUrl'],
  ])('refuses a query parameter that is not valid UTF-8 (%s), naming it', async (query, field) => {
    const answer = await post(`${createPath}?id=broken-query&${query}`, Buffer.alloc(0));
    const problem = expectSocketProblem(answer, 400, 'VALIDATION_FAILED') as {
      errors?: { field: string }[];
    };
    expect(problem.errors?.map((error) => error.field)).toContain(field);
    expect(await stored('broken-query')).toBe(404);
  });

  it('answers a request without Host with a problem, not a bare 400', async () => {
    const answer = await exchange(service.url, 'GET /ctrl/health/live HTTP/1.1\r\n\r\n');
    expectSocketProblem(answer, 400, 'MALFORMED_REQUEST');
  });

  it.each([
    [
      'a header without a colon',
      'GET /ctrl/health/live HTTP/1.1\r\nhost: x\r\nno colon here\r\n\r\n',
    ],
    ['a method that is no token', 'G@T /ctrl/health/live HTTP/1.1\r\nhost: x\r\n\r\n'],
    ['an unknown protocol version', 'GET /ctrl/health/live HTTP/7.1\r\nhost: x\r\n\r\n'],
    [
      'two content lengths',
      'POST /ctrl/health/live HTTP/1.1\r\nhost: x\r\ncontent-length: 1\r\ncontent-length: 2\r\n\r\nab',
    ],
  ])('answers %s with a problem', async (_case, bytes) => {
    expectSocketProblem(await exchange(service.url, bytes), 400, 'MALFORMED_REQUEST');
  });

  it('says that a form has too many fields, not that it is too large', async () => {
    const fields = Array.from({ length: 101 }, (_, index): [string, string] => [`f${index}`, 'x']);
    const response = await postForm(service.url, tokenPath, fields);
    expect(response.status).toBe(413);
    expect((response.body as { detail: string }).detail).toMatch(/more than 100 fields/);
  });

  it.each([
    ['/ctrl/api/v1.0/tenants?q=a&q=b', 'q'],
    ['/ctrl/api/v1.0/tenants?page=0&page=1', 'page'],
    ['/ctrl/api/v1.0/tenants?sort=id,asc&sort=label,asc', 'sort'],
  ])('says that a parameter was given more than once: %s', async (path, field) => {
    const response = await service.request(path);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({
      code: 'VALIDATION_FAILED',
      errors: [{ field, message: 'is given more than once' }],
    });
  });

  it('keeps the API explorer, which holds tokens, out of frames', async () => {
    for (const path of [
      '/ctrl/swagger-ui/',
      '/ctrl/swagger-ui/index.html',
      '/ctrl/swagger-ui/swagger-ui-init.js',
    ]) {
      const response = await service.request(path, { as: 'anonymous' });
      expect({
        path,
        status: response.status,
        frameOptions: response.headers.get('x-frame-options'),
        policy: response.headers.get('content-security-policy'),
      }).toEqual({ path, status: 200, frameOptions: 'DENY', policy: "frame-ancestors 'none'" });
    }
  });
});
