import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startService, type RunningService } from '../../src/service.js';
import { createTestDatabase } from './database.js';

export interface TestService extends RunningService {
  /** The database URL this service uses, for looking at stored rows directly. */
  readonly databaseUrl: string;
  readonly masterKey: string;
  /**
   * A real HTTP request to this service, made as the administrator unless `request.as` says otherwise.
   * Tests use this rather than `call` so that they keep working as authentication evolves.
   */
  request<Body = unknown>(path: string, request?: ApiRequest): Promise<ApiResponse<Body>>;
}

/** The real service on a free port, on its own database, as a test file's fixture. */
export async function startTestService(env: Record<string, string> = {}): Promise<TestService> {
  const databaseUrl = env.DATABASE_URL ?? (await createTestDatabase());
  const masterKey = env.AGENT_MASTER_KEY ?? randomBytes(32).toString('base64');
  const dataDir = mkdtempSync(join(tmpdir(), 'agent-data-'));
  chmodSync(dataDir, 0o755);
  const service = await startService({
    env: {
      NODE_ENV: 'test',
      PORT: '0',
      DATA_DIR: dataDir,
      ...env,
      DATABASE_URL: databaseUrl,
      AGENT_MASTER_KEY: masterKey,
    },
    logLevels: ['fatal'],
  });
  return {
    ...service,
    databaseUrl,
    masterKey,
    request: (path, request) => call(service.url, path, request),
  };
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
  /** Who calls: the administrator by default; 'anonymous' sends no credentials. */
  as?: 'admin' | 'anonymous';
}

/** One real HTTP request to the service. */
export async function call<Body = unknown>(
  baseUrl: string,
  path: string,
  request: ApiRequest = {},
): Promise<ApiResponse<Body>> {
  const url = new URL(path, baseUrl);
  for (const [name, value] of Object.entries(request.query ?? {})) url.searchParams.append(name, value);
  const headers: Record<string, string> = { ...request.headers };
  let body: string | undefined;
  if (request.body !== undefined) {
    body = typeof request.body === 'string' ? request.body : JSON.stringify(request.body);
    if (!Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) {
      headers['content-type'] = 'application/json';
    }
  }
  const response = await fetch(url, { method: request.method ?? 'GET', headers, body, redirect: 'manual' });
  const text = await response.text();
  const type = response.headers.get('content-type') ?? '';
  const parsed: unknown = /json/.test(type) && text !== '' ? JSON.parse(text) : text;
  return { status: response.status, headers: response.headers, body: parsed as Body, text };
}
