import { expectSocketProblem } from './support/problems.js';
import { type AddressInfo, type Server } from 'node:net';
import { openExchange, type OpenExchange } from './support/raw-socket.js';
import { startTestService, type TestService } from './support/test-service.js';

/**
 * Clients that are slow on purpose: the token is checked before a body is read, a request or its
 * headers that take too long get 408, and connections are capped (docs/operations.md, HTTP server).
 */

const createPath = '/ctrl/api/v1.0/tenants/create';

/** Fails the test instead of waiting for a server that never answers. */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<T>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no ${what} within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

function head(method: string, path: string, headers: Record<string, string>): string {
  const lines = Object.entries({ host: 'localhost', ...headers }).map(
    ([name, value]) => `${name}: ${value}\r\n`,
  );
  return `${method} ${path} HTTP/1.1\r\n${lines.join('')}\r\n`;
}

describe('slow clients', () => {
  let service: TestService;
  const open: OpenExchange[] = [];
  const exchange = (bytes: string) => {
    const started = openExchange(service.url, bytes);
    open.push(started);
    return started;
  };

  beforeAll(async () => {
    service = await startTestService({
      env: { HTTP_REQUEST_TIMEOUT_MS: '1500', HTTP_HEADERS_TIMEOUT_MS: '1000' },
    });
  });

  afterEach(() => {
    for (const started of open.splice(0)) started.socket.destroy();
  });

  afterAll(async () => {
    await service.close();
  });

  it.each([
    ['no token', {}, 401, 'UNAUTHORIZED'],
    ['a forged token', { authorization: 'Bearer e30.e30.AAAA' }, 401, 'UNAUTHORIZED'],
  ])(
    'answers a body sent with %s at once, without waiting for the body, and closes the connection',
    async (_case, headers, status, code) => {
      const started = exchange(
        head('POST', createPath, {
          ...headers,
          'content-type': 'application/json',
          'content-length': '50000',
        }) + '{"id":"slow',
      );
      expectSocketProblem(await within(started.answer, 1_000, 'answer'), status, code);
      await within(started.closed, 1_000, 'close');
    },
  );

  it('answers 403 to a caller without the role before it reads the body', async () => {
    const demo = await service.tokenFor('demo');
    const started = exchange(
      head('POST', createPath, {
        authorization: `Bearer ${demo}`,
        'content-type': 'application/json',
        'content-length': '50000',
      }) + '{"id":"slow',
    );
    expectSocketProblem(await within(started.answer, 1_000, 'answer'), 403, 'FORBIDDEN');
    await within(started.closed, 1_000, 'close');
  });

  it('answers 408 when an authenticated body takes longer than the request timeout', async () => {
    const admin = await service.tokenFor('admin');
    const started = exchange(
      head('POST', createPath, {
        authorization: `Bearer ${admin}`,
        'content-type': 'application/json',
        'content-length': '500',
      }) + '{"id":"slow-body"',
    );
    expectSocketProblem(await within(started.answer, 4_000, 'answer'), 408, 'REQUEST_TIMEOUT');
    await within(started.closed, 1_000, 'close');
    expect((await service.request('/ctrl/api/v1.0/tenants/slow-body')).status).toBe(404);
  });

  it('answers 408 when the headers take longer than the headers timeout', async () => {
    const started = exchange('GET /ctrl/health/live HTTP/1.1\r\nhost: localhost\r\nx-slow: ');
    expectSocketProblem(await within(started.answer, 4_000, 'answer'), 408, 'REQUEST_TIMEOUT');
    await within(started.closed, 1_000, 'close');
  });

  it('listens on loopback only in local mode, where the development passwords work', () => {
    const address = service.app.getHttpServer().address() as AddressInfo;
    expect(address.address).toBe('127.0.0.1');
  });
});

describe('a capped number of connections', () => {
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService({ env: { HTTP_MAX_CONNECTIONS: '3', HOST: '0.0.0.0' } });
  });

  afterAll(async () => {
    await service.close();
  });

  it('drops connections above the cap and serves again once one is gone', async () => {
    const server = service.app.getHttpServer() as Server;
    /** Resolves once the server holds exactly `count` connections. */
    const holding = async (count: number) => {
      const deadline = Date.now() + 5_000;
      while (Date.now() < deadline) {
        const open = await new Promise<number>((resolve) =>
          server.getConnections((error, n) => resolve(error ? -1 : n)),
        );
        if (open === count) return;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      throw new Error(`the server never held ${count} connections`);
    };
    const idle = Array.from({ length: 3 }, () => openExchange(service.url, ''));
    await holding(3);
    const refused = openExchange(service.url, head('GET', '/ctrl/health/live', {}));
    await within(refused.closed, 1_000, 'close of the connection over the cap');
    await expect(refused.answer).rejects.toThrow(/closed without a whole answer/);
    idle[0].socket.destroy();
    await holding(2);
    const served = openExchange(
      service.url,
      head('GET', '/ctrl/health/live', { connection: 'close' }),
    );
    expect((await within(served.answer, 2_000, 'answer')).status).toBe(200);
    for (const started of [...idle, served]) started.socket.destroy();
  });

  it('listens on every interface when HOST says so', () => {
    const address = service.app.getHttpServer().address() as AddressInfo;
    expect(address.address).toBe('0.0.0.0');
  });
});
