import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { AppProcess, eventually } from './support/app-process.js';
import { Cleanup } from './support/cleanup.js';
import { freePort } from './support/ports.js';

/** A span as OTLP/HTTP JSON carries it. */
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: { key: string; value: Record<string, unknown> }[];
}

const serverKind = 2;
/** A PostgreSQL query's span (semantic conventions old and new). */
const isQuery = (span: OtlpSpan) =>
  span.name.startsWith('pg.query') &&
  [attributesOf(span)['db.system'], attributesOf(span)['db.system.name']].includes('postgresql');
const clientKind = 3;

function attributesOf(span: OtlpSpan): Record<string, unknown> {
  return Object.fromEntries(
    (span.attributes ?? []).map(({ key, value }) => [key, Object.values(value)[0]]),
  );
}

/**
 * `node dist/src/main.js` with the standard OTEL_* variables pointing at a local OTLP/HTTP collector
 * (this test): one GET /did makes one trace, the incoming request with the request id and the tenant,
 * Express and Nest inside it, its PostgreSQL query under those; no token or query in any attribute.
 */
describe('traces over OTLP', () => {
  const cleanup = new Cleanup();
  const spans: OtlpSpan[] = [];
  let collector: Server;
  let app: AppProcess;
  let token: string;

  beforeAll(async () => {
    collector = createServer((request, response) => {
      let body = '';
      request.setEncoding('utf8');
      request.on('data', (chunk: string) => (body += chunk));
      request.on('end', () => {
        if (request.url === '/v1/traces') {
          const exported = JSON.parse(body) as {
            resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[];
          };
          for (const resource of exported.resourceSpans) {
            for (const scope of resource.scopeSpans) spans.push(...scope.spans);
          }
        }
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    cleanup.add(
      'stop the collector',
      () => new Promise<void>((resolve) => collector.close(() => resolve())),
    );
    const port = await freePort();
    app = await AppProcess.start(
      {
        port,
        cwd: cleanup.tempDir('tracing-cwd'),
        env: {
          PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
          DATA_DIR: cleanup.tempDir('tracing-data'),
          OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(collector.address() as AddressInfo).port}`,
          OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
          OTEL_BSP_SCHEDULE_DELAY: '100',
        },
      },
      cleanup,
    );
    const grant = await fetch(`${app.url}/auth/realms/agent-cloud/protocol/openid-connect/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=password&client_id=agent-client&username=admin&password=admin',
    });
    token = ((await grant.json()) as { access_token: string }).access_token;
    const created = await fetch(`${app.url}/ctrl/api/v1.0/tenants/create?id=acme&label=Acme`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(created.status).toBe(201);
  }, 120_000);

  afterAll(() => cleanup.run(), 60_000);

  it('follows one GET /did from the request through Nest to its PostgreSQL query', async () => {
    const response = await fetch(`${app.url}/ctrl/api/v1.0/did?secret-looking=query-value`, {
      headers: {
        authorization: `Bearer ${token}`,
        'x-tenant-id': 'acme',
        'x-request-id': 'trace-test-did-1',
      },
    });
    expect(response.status).toBe(200);

    const root = await eventually(
      () => {
        return spans.find(
          (span) =>
            span.kind === serverKind &&
            attributesOf(span)['agent.request_id'] === 'trace-test-did-1',
        );
      },
      15_000,
      'the server span with the request id',
    );
    // Children are exported when they end, before or after the root: wait for the query.
    const trace = await eventually(
      () => {
        const inTrace = spans.filter((span) => span.traceId === root.traceId);
        const done = inTrace.some((span) => isQuery(span));
        return done ? inTrace : undefined;
      },
      15_000,
      "the request's PostgreSQL span",
    );

    expect(root.parentSpanId ?? '').toBe('');
    expect(attributesOf(root)).toMatchObject({
      'agent.request_id': 'trace-test-did-1',
      'agent.tenant_id': 'acme',
      'http.route': '/ctrl/api/v1.0/did',
    });
    const byId = new Map(trace.map((span) => [span.spanId, span]));
    const ancestors = (span: OtlpSpan): OtlpSpan[] => {
      const parent = span.parentSpanId ? byId.get(span.parentSpanId) : undefined;
      return parent === undefined ? [] : [parent, ...ancestors(parent)];
    };
    // Express's request handler for the route, the Nest handler inside it, the query inside that.
    const handler = trace.find(
      (span) =>
        attributesOf(span)['express.type'] === 'request_handler' &&
        attributesOf(span)['http.route'] === '/ctrl/api/v1.0/did',
    );
    expect(handler).toBeDefined();
    const nest = trace.find((span) => attributesOf(span)['nestjs.type'] === 'handler');
    expect(nest).toMatchObject({ name: 'DidController.getDid', parentSpanId: handler!.spanId });
    const query = trace.find((span) => isQuery(span))!;
    expect(query.kind).toBe(clientKind);
    expect(ancestors(query)).toContain(nest);
    // Every span of the request hangs under its server span.
    for (const span of trace.filter((one) => one !== root)) {
      expect(ancestors(span)).toContain(root);
    }

    // No token, no query string, no header value anywhere in the request's spans.
    const text = JSON.stringify(trace.map(attributesOf));
    expect(text).not.toContain(token.slice(-40));
    expect(text).not.toContain('Bearer');
    expect(text).not.toContain('query-value');
  });

  it('records an outgoing call with its origin only, and no span for the probes', async () => {
    // The first token check fetched the issuer's keys over loopback: an outgoing HTTP call.
    const client = await eventually(
      () =>
        spans.find(
          (span) =>
            span.kind === clientKind &&
            (attributesOf(span)['http.request.method'] ?? attributesOf(span)['http.method']) !==
              undefined,
        ),
      15_000,
      'an outgoing HTTP span',
    );
    const attributes = attributesOf(client);
    const url = String(attributes['url.full'] ?? attributes['http.url']);
    expect(new URL(url).pathname).toBe('/');
    expect(JSON.stringify(attributes)).not.toContain('/certs');
    const before = spans.length;
    expect((await fetch(`${app.url}/ctrl/health/ready`)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const serverSpansSince = spans.slice(before).filter((span) => span.kind === serverKind);
    expect(serverSpansSince).toEqual([]);
  });
});
