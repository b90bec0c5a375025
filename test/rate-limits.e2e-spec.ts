import { loadSettings } from '../src/config/load-settings.js';
import { RateLimits } from '../src/auth/rate-limits.js';
import { DomainException } from '../src/common/problem/domain.exception.js';
import { Metrics } from '../src/observability/metrics.js';
import { OpenApiContract, type OpenApiDocument } from './support/openapi-contract.js';
import { expectProblem } from './support/problems.js';
import {
  call,
  passwordGrant,
  postForm,
  startTestService,
  type ApiResponse,
  type TestService,
} from './support/test-service.js';

const didPath = '/ctrl/api/v1.0/did';
const tokenPath = '/auth/realms/agent-cloud/protocol/openid-connect/token';

function expectRateLimited(response: ApiResponse, path: string): void {
  expectProblem(response, 429, 'RATE_LIMITED', path);
  const retryAfter = Number(response.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
}

/**
 * Requests a minute per caller and per address, over real HTTP: 429 problem+json with Retry-After
 * once a key has none left, the probes never limited, guessed tokens counted by address.
 */
describe('Rate limits', () => {
  let service: TestService;
  let contract: OpenApiContract;
  let adminToken: string;
  let demoToken: string;

  beforeAll(async () => {
    service = await startTestService({
      env: { RATE_LIMIT_CALLER_PER_MINUTE: '5', RATE_LIMIT_IP_PER_MINUTE: '8' },
    });
    // Three of the address's 8: the token endpoint and the OpenAPI document are public.
    adminToken = (await passwordGrant(service.url, 'admin', 'admin')).access_token;
    demoToken = (await passwordGrant(service.url, 'demo', 'demo')).access_token;
    contract = new OpenApiContract(
      (await call<OpenApiDocument>(service.url, '/ctrl/v3/api-docs')).body,
    );
  });
  afterAll(() => service.close());

  it('lets a caller make its requests of the minute, then answers 429 with Retry-After', async () => {
    const headers = { 'x-tenant-id': 'demo' };
    await service.request('/ctrl/api/v1.0/tenants/create', {
      method: 'POST',
      token: adminToken,
      query: { id: 'demo', label: 'Demo' },
    });
    const answers: ApiResponse[] = [];
    for (let i = 0; i < 5; i++) {
      answers.push(await service.request(didPath, { token: adminToken, headers }));
    }
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 429]);
    const refused = answers[4];
    expectRateLimited(refused, didPath);
    expect(contract.violations('getDid', refused)).toEqual([]);
    // Another caller has its own count.
    const demo = await service.request(didPath, { token: demoToken, headers });
    expect(demo.status).toBe(200);
  });

  it('never limits the probes', async () => {
    for (let i = 0; i < 20; i++) {
      expect((await service.request('/ctrl/health/live', { as: 'anonymous' })).status).toBe(200);
    }
  });

  it('counts public requests and guessed tokens by address, the token endpoint included', async () => {
    // The address has used 3 (see above); bad tokens are still answered 401 until it runs out.
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      statuses.push((await service.request(didPath, { token: `not.a.token${i}` })).status);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401]);
    const guessed = await service.request(didPath, { token: 'not.a.token' });
    expectRateLimited(guessed, didPath);
    const grant = await call(service.url, tokenPath, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=password&client_id=agent-client&username=admin&password=admin',
    });
    expectRateLimited(grant, tokenPath);
    const problems = await service.request('/ctrl/problems', { as: 'anonymous' });
    expect(problems.status).toBe(429);
    // A caller whose token was verified before is counted as that caller, not by address.
    const verified = await service.request(didPath, {
      token: demoToken,
      headers: { 'x-tenant-id': 'demo' },
    });
    expect(verified.status).toBe(200);
  });
});

/**
 * The client address is the peer's unless the peer is a proxy that TRUST_PROXY names: a client that
 * reaches the app directly cannot pick a new address for each request with X-Forwarded-For.
 */
describe('Client address', () => {
  const wrongSecret = (url: string, forwardedFor: string) =>
    postForm(
      url,
      tokenPath,
      { grant_type: 'client_credentials', client_id: 'agent-service', client_secret: 'wrong' },
      { 'x-forwarded-for': forwardedFor },
    );
  const statusesOf = async (url: string, addresses: string[]) => {
    const statuses: number[] = [];
    for (const address of addresses) statuses.push((await wrongSecret(url, address)).status);
    return statuses;
  };
  const rotating = Array.from({ length: 8 }, (_, index) => `203.0.113.${index + 1}`);

  it('counts a direct client by its own address, whatever X-Forwarded-For it sends', async () => {
    const service = await startTestService({ env: { RATE_LIMIT_IP_PER_MINUTE: '5' } });
    try {
      expect(await statusesOf(service.url, rotating)).toEqual([
        401, 401, 401, 401, 401, 429, 429, 429,
      ]);
    } finally {
      await service.close();
    }
  });

  it('counts by the forwarded address when the peer is a proxy TRUST_PROXY names', async () => {
    const service = await startTestService({
      env: { RATE_LIMIT_IP_PER_MINUTE: '5', TRUST_PROXY: 'loopback' },
    });
    try {
      expect(await statusesOf(service.url, rotating)).toEqual(Array(8).fill(401));
      const same = Array<string>(6).fill('198.51.100.7');
      expect(await statusesOf(service.url, same)).toEqual([401, 401, 401, 401, 401, 429]);
    } finally {
      await service.close();
    }
  });
});

/** The counters themselves: in memory per instance, in Redis across instances (test:external). */
describe('Rate limit counters', () => {
  const limitsWith = (env: Record<string, string>) =>
    new RateLimits(
      loadSettings({
        NODE_ENV: 'test',
        DATABASE_URL: 'postgres://agent@127.0.0.1:5432/agent',
        AGENT_MASTER_KEY: Buffer.alloc(32, 7).toString('base64'),
        RATE_LIMIT_CALLER_PER_MINUTE: '3',
        ...env,
      }),
      new Metrics(),
    );
  const outcomes = async (limits: RateLimits[], id: string, count: number) => {
    const results: string[] = [];
    for (let i = 0; i < count; i++) {
      const limiter = limits[i % limits.length];
      results.push(
        await limiter.consume('caller', id).then(
          () => 'ok',
          (error: unknown) => (error instanceof DomainException ? error.code : String(error)),
        ),
      );
    }
    return results;
  };

  /**
   * Waits (bounded) until both instances count in Redis: three calls on one and a fourth on the other
   * are refused only once both are connected (until then each counts in its own memory).
   */
  const untilShared = async (one: RateLimits, two: RateLimits) => {
    for (let attempt = 0; attempt < 200; attempt++) {
      const probe = await outcomes([one, one, one, two], `probe-${attempt}-${Date.now()}`, 4);
      if (probe[3] === 'RATE_LIMITED') return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error('the instances never counted together in Redis');
  };

  it('counts each instance on its own without Redis', async () => {
    const [one, two] = [limitsWith({}), limitsWith({})];
    expect(await outcomes([one, two], 'subject-a', 8)).toEqual([
      'ok',
      'ok',
      'ok',
      'ok',
      'ok',
      'ok',
      'RATE_LIMITED',
      'RATE_LIMITED',
    ]);
    one.onModuleDestroy();
    two.onModuleDestroy();
  });

  it('keeps counting in memory while Redis cannot be reached', async () => {
    const limits = limitsWith({ RATE_LIMIT_REDIS_URL: 'redis://127.0.0.1:1' });
    expect(await outcomes([limits], 'subject-b', 4)).toEqual(['ok', 'ok', 'ok', 'RATE_LIMITED']);
    limits.onModuleDestroy();
  });

  const redisUrl = process.env.TEST_REDIS_URL;
  (redisUrl === undefined ? it.skip : it)(
    'holds one limit across instances that share Redis',
    async () => {
      const [one, two] = [
        limitsWith({ RATE_LIMIT_REDIS_URL: redisUrl! }),
        limitsWith({ RATE_LIMIT_REDIS_URL: redisUrl! }),
      ];
      await untilShared(one, two);
      const subject = `subject-${Date.now()}`;
      expect(await outcomes([one, two], subject, 5)).toEqual([
        'ok',
        'ok',
        'ok',
        'RATE_LIMITED',
        'RATE_LIMITED',
      ]);
      one.onModuleDestroy();
      two.onModuleDestroy();
    },
  );

  (redisUrl === undefined ? it.skip : it)(
    'holds one burst across instances that share Redis',
    async () => {
      const env = {
        RATE_LIMIT_REDIS_URL: redisUrl!,
        RATE_LIMIT_CALLER_PER_MINUTE: '100',
        RATE_LIMIT_CALLER_BURST: '3',
      };
      const [one, two] = [limitsWith(env), limitsWith(env)];
      await untilShared(one, two);
      const subject = `subject-burst-${Date.now()}`;
      expect(await outcomes([one, two], subject, 5)).toEqual([
        'ok',
        'ok',
        'ok',
        'RATE_LIMITED',
        'RATE_LIMITED',
      ]);
      one.onModuleDestroy();
      two.onModuleDestroy();
    },
  );
});
