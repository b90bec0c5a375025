import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { queryDatabase } from './database.js';
import { startTestService, type ApiResponse, type TestService } from './test-service.js';
import { createPath } from './api-shapes.js';

/** What the error-response files share: a running service and assertions on problem documents. */

/**
 * Every error is an RFC 9457 problem document (api.md, Errors): unknown routes, wrong methods, bad
 * bodies, refused callers. Plus the public surface around it: health, the API explorer and OpenAPI.
 */

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

export interface RawRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  /** Written as one piece, or piece by piece when chunked (no content-length). */
  body?: string | string[];
}

/** A request with full control over method, headers and framing, for what fetch will not send. */
export function rawRequest(baseUrl: string, request: RawRequest): Promise<RawResponse> {
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
export function asApiResponse(raw: RawResponse): ApiResponse {
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
export function jsonBodyOfBytes(bytes: number): string {
  const frame = JSON.stringify({ id: 'padded', label: '' });
  return JSON.stringify({ id: 'padded', label: 'a'.repeat(bytes - frame.length) });
}

/** Registers the service's start and stop on the calling describe block. */
export function useErrorsService() {
  const context: {
    service: TestService;
  } = {
    service: undefined as unknown as TestService,
  };

  beforeAll(async () => {
    context.service = await startTestService();
    const created = await context.service.request(createPath, {
      method: 'POST',
      query: { id: 'acme', label: 'ACME Corp' },
    });
    expect(created.status).toBe(201);
  });

  afterAll(async () => {
    await context.service.close();
  });

  async function tenantCount(): Promise<number> {
    const [row] = await queryDatabase<{ count: string }>(
      context.service.databaseUrl,
      'SELECT count(*) AS count FROM tenant',
    );
    return Number(row.count);
  }

  async function bearer(): Promise<string> {
    return `Bearer ${await context.service.tokenFor('admin')}`;
  }

  return {
    context,
    tenantCount,
    bearer,
  };
}
