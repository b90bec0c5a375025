import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { AgentClient, type AgentClientOptions } from '../../packages/client/src/index.js';
import { startService, type RunningService } from '../../src/bootstrap/start-service.js';
import { createTestDatabase } from './database.js';

export interface TestService extends RunningService {
  /** The database URL this service uses, for looking at stored rows directly. */
  readonly databaseUrl: string;
  readonly masterKey: string;
  readonly dataDir: string;
  /** http://localhost:<port>: the origin the issuer puts in `iss` and its URLs. */
  readonly publicBaseUrl: string;
  /** A cached access token of a realm user (password grant over HTTP). */
  tokenFor(user: 'admin' | 'demo'): Promise<string>;
  /**
   * A real HTTP request to this service, made as the administrator unless `request.as` says otherwise.
   * Tests use this rather than `call` so that they keep working as authentication evolves.
   */
  request<Body = unknown>(path: string, request?: ApiRequest): Promise<ApiResponse<Body>>;
  /**
   * The typed client (`@agent-service/client`) signed in as a realm user, for tests that are not about raw
   * HTTP. Without options, one client per user is kept, so its token is reused across tests.
   */
  client(as?: 'admin' | 'demo', options?: Partial<AgentClientOptions>): AgentClient;
}

export interface TestServiceOptions {
  env?: Record<string, string>;
  /** The service's clock (milliseconds), the embedded issuer's with it; tests move it instead of sleeping. */
  clock?: () => number;
  /** Capture the service's log lines (JSON) here; silent otherwise. */
  logDestination?: { write(line: string): void };
}

/**
 * The real service on a free port, on its own database, with the embedded issuer on the same origin
 * (PUBLIC_BASE_URL is the real address, so issuer URLs work), as a test file's fixture.
 */
export async function startTestService(options: TestServiceOptions = {}): Promise<TestService> {
  const env = options.env ?? {};
  const databaseUrl = env.DATABASE_URL ?? (await createTestDatabase());
  const masterKey = env.AGENT_MASTER_KEY ?? randomBytes(32).toString('base64');
  const dataDir = env.DATA_DIR ?? mkdtempSync(join(tmpdir(), 'agent-data-'));
  chmodSync(dataDir, 0o755);
  const port = env.PORT ?? String(await freePort());
  const service = await startService({
    env: {
      NODE_ENV: 'test',
      PORT: port,
      PUBLIC_BASE_URL: `http://localhost:${port}`,
      DATA_DIR: dataDir,
      // Tests run services side by side and make many requests: metrics and limits where a test asks.
      METRICS_PORT: '0',
      RATE_LIMIT_CALLER_PER_MINUTE: '1000000',
      RATE_LIMIT_IP_PER_MINUTE: '1000000',
      RATE_LIMIT_CALLER_BURST: '0',
      RATE_LIMIT_IP_BURST: '0',
      HTTP_MAX_IN_FLIGHT_TOKEN: '0',
      HTTP_MAX_IN_FLIGHT_WALLET: '0',
      HTTP_MAX_IN_FLIGHT_API: '0',
      // One process runs the tests' clients and the service, on a busy machine: the wait of old.
      DATABASE_POOL_ACQUIRE_TIMEOUT_MS: '5000',
      // The test's own client keeps its connections open: no use waiting for it to close them.
      SHUTDOWN_IDLE_WAIT_MS: '0',
      // As local mode: a development certificate authority, every tenant certified on first need.
      CERTIFICATE_AUTHORITY_DEVELOPMENT: 'true',
      ...env,
      DATABASE_URL: databaseUrl,
      AGENT_MASTER_KEY: masterKey,
    },
    logLevel: options.logDestination === undefined ? 'silent' : 'debug',
    logDestination: options.logDestination,
    clock: options.clock,
  });
  const tokens = new Map<string, Promise<string>>();
  const tokenFor = (user: 'admin' | 'demo') => {
    let token = tokens.get(user);
    if (token === undefined) {
      token = passwordGrant(service.url, user, user).then((response) => response.access_token);
      tokens.set(user, token);
    }
    return token;
  };
  const clients = new Map<string, AgentClient>();
  const client = (as: 'admin' | 'demo' = 'admin', options?: Partial<AgentClientOptions>) => {
    const make = () =>
      new AgentClient({
        baseUrl: service.url,
        credentials: { username: as, password: as },
        ...options,
      });
    if (options !== undefined) return make();
    let cached = clients.get(as);
    if (cached === undefined) {
      cached = make();
      clients.set(as, cached);
    }
    return cached;
  };
  return {
    ...service,
    databaseUrl,
    masterKey,
    dataDir,
    publicBaseUrl: `http://localhost:${port}`,
    tokenFor,
    client,
    request: async (path, request = {}) => {
      const as = request.as ?? 'admin';
      const headers = { ...request.headers };
      if (request.token !== undefined) headers.authorization = `Bearer ${request.token}`;
      else if (as !== 'anonymous') headers.authorization = `Bearer ${await tokenFor(as)}`;
      return call(service.url, path, { ...request, headers });
    },
  };
}

export interface TokenResponseBody {
  access_token: string;
  expires_in: number;
  refresh_expires_in: number;
  refresh_token?: string;
  token_type: string;
  id_token?: string;
  session_state?: string;
  scope: string;
}

/** The password grant of the public client agent-client against the token endpoint (real HTTP). */
export async function passwordGrant(
  baseUrl: string,
  username: string,
  password: string,
  extra: Record<string, string> = {},
): Promise<TokenResponseBody> {
  const response = await postForm(baseUrl, tokenPath, {
    client_id: 'agent-client',
    grant_type: 'password',
    username,
    password,
    ...extra,
  });
  if (response.status !== 200)
    throw new Error(`password grant failed: ${response.status} ${response.text}`);
  return response.body as TokenResponseBody;
}

export const tokenPath = '/auth/realms/agent-cloud/protocol/openid-connect/token';

/** A form post (application/x-www-form-urlencoded), as OAuth clients send them. */
export async function postForm(
  baseUrl: string,
  path: string,
  fields: Record<string, string> | [string, string][],
  headers: Record<string, string> = {},
): Promise<ApiResponse> {
  return call(baseUrl, path, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(fields).toString(),
  });
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address() as AddressInfo;
      probe.close(() => resolve(address.port));
    });
  });
}

export interface ApiResponse<Body = unknown> {
  status: number;
  headers: Headers;
  /** Parsed JSON when the response is JSON, else the text. */
  body: Body;
  text: string;
}

export interface ApiRequest {
  method?: string;
  headers?: Record<string, string>;
  query?: Record<string, string>;
  /** Sent as JSON unless it is a string, which is sent as is. */
  body?: unknown;
  /** Who calls: the administrator by default; 'demo' is an agent-user; 'anonymous' sends no token. */
  as?: 'admin' | 'demo' | 'anonymous';
  /** An explicit access token (overrides `as`). */
  token?: string;
}

/** One real HTTP request to the service. */
export async function call<Body = unknown>(
  baseUrl: string,
  path: string,
  request: ApiRequest = {},
): Promise<ApiResponse<Body>> {
  const url = new URL(path, baseUrl);
  for (const [name, value] of Object.entries(request.query ?? {}))
    url.searchParams.append(name, value);
  const headers: Record<string, string> = { ...request.headers };
  let body: string | undefined;
  if (request.body !== undefined) {
    body = typeof request.body === 'string' ? request.body : JSON.stringify(request.body);
    if (!Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) {
      headers['content-type'] = 'application/json';
    }
  }
  const response = await fetch(url, {
    method: request.method ?? 'GET',
    headers,
    body,
    redirect: 'manual',
  });
  const text = await response.text();
  const type = response.headers.get('content-type') ?? '';
  const parsed: unknown = /json/.test(type) && text !== '' ? JSON.parse(text) : text;
  return { status: response.status, headers: response.headers, body: parsed as Body, text };
}
