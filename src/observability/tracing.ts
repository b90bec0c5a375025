import { type Span } from '@opentelemetry/api';
import { type NodeSDK } from '@opentelemetry/sdk-node';
import { ClientRequest, type IncomingMessage } from 'node:http';
import { register } from 'node:module';
import { loggablePath, targetPath } from '../common/request-target.js';
import { serverSpans } from './server-spans.js';

type Environment = Record<string, string | undefined>;

/**
 * Traces are on only when the standard variables ask for an exporter: an OTLP endpoint, or
 * OTEL_TRACES_EXPORTER other than `none`; OTEL_SDK_DISABLED=true turns them off.
 */
export function tracingRequested(env: Environment): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  const exporters = env.OTEL_TRACES_EXPORTER?.split(',').map((name) => name.trim());
  if (exporters !== undefined && exporters.some((name) => name !== '')) {
    return exporters.some((name) => name !== '' && name !== 'none');
  }
  return [env.OTEL_EXPORTER_OTLP_ENDPOINT, env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT].some(
    (value) => value !== undefined && value.trim() !== '',
  );
}

/**
 * What a span may say of a URL: an incoming request's path without its query (which can carry an
 * authorization code, a state or an id_token_hint), an outgoing request's origin only (a webhook URL's
 * path can hold the receiver's secret), never a secret path segment. The HTTP instrumentation records the stable semantic
 * conventions only: `url.path` and `url.query` on server spans, `url.full` on client spans.
 */
function redactUrls(span: Span, request: IncomingMessage | ClientRequest): void {
  if (request instanceof ClientRequest) {
    span.setAttribute('url.full', `${request.protocol}//${request.host}/`);
  } else {
    if (request.url?.includes('?')) span.setAttribute('url.query', '');
    // A path segment that is a bearer secret (an offer's reference) is shown as its parameter.
    const path = targetPath(request.url);
    if (loggablePath(path) !== path) span.setAttribute('url.path', loggablePath(path));
  }
}

/**
 * Starts the OpenTelemetry SDK (traces only; metrics are Prometheus's) before the modules it
 * instruments are loaded; answers undefined when tracing is off, without loading the SDK at all.
 */
export async function startTracing(env: Environment = process.env): Promise<NodeSDK | undefined> {
  if (!tracingRequested(env)) return undefined;
  // CommonJS packages imported from ES modules (express, pg) reach the instrumentations only through
  // OpenTelemetry's loader hook.
  register('@opentelemetry/instrumentation/hook.mjs', import.meta.url);
  const [{ NodeSDK }, express, http, pg] = await Promise.all([
    import('@opentelemetry/sdk-node'),
    import('@opentelemetry/instrumentation-express'),
    import('@opentelemetry/instrumentation-http'),
    import('@opentelemetry/instrumentation-pg'),
  ]);
  // The SDK would also start OTLP metric and log exporters by default.
  env.OTEL_METRICS_EXPORTER ??= 'none';
  env.OTEL_LOGS_EXPORTER ??= 'none';
  env.OTEL_SERVICE_NAME ??= 'agent-service';
  const sdk = new NodeSDK({
    instrumentations: [
      new http.HttpInstrumentation({
        ignoreIncomingRequestHook: (request) => request.url?.startsWith('/ctrl/health/') ?? false,
        requestHook: (span, request) => {
          redactUrls(span, request);
          if (!(request instanceof ClientRequest)) serverSpans.set(request, span);
        },
      }),
      new express.ExpressInstrumentation(),
      new pg.PgInstrumentation({ enhancedDatabaseReporting: false }),
    ],
  });
  sdk.start();
  return sdk;
}
