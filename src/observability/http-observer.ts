import { type IncomingMessage, type ServerResponse } from 'node:http';
import { type ContextualRequest } from '../common/request-context.js';
import { type Metrics } from './metrics.js';
import { serverSpans } from './server-spans.js';

const methods = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** Express sets the matched route on the request; its path is the template, never the raw path. */
interface RoutedRequest extends IncomingMessage {
  route?: { path?: unknown };
}

/**
 * Per request, once its answer is written: the duration histogram by method, route template and
 * status class, and on the request's span (when tracing is on) the request id and the tenant.
 */
export function observeRequests(metrics: Metrics | undefined) {
  return (request: IncomingMessage, response: ServerResponse, next: () => void): void => {
    const started = performance.now();
    const written = () => {
      response.removeListener('finish', written);
      response.removeListener('close', written);
      const agent = (request as unknown as ContextualRequest).agent;
      const span = serverSpans.get(request);
      if (span !== undefined) {
        if (agent?.requestId !== undefined) span.setAttribute('agent.request_id', agent.requestId);
        if (agent?.tenantId !== undefined) span.setAttribute('agent.tenant_id', agent.tenantId);
      }
      metrics?.httpRequestDuration.observe(
        {
          method: methods.has(request.method ?? '') ? request.method : 'other',
          route: routeOf(request, response.statusCode),
          status_class: `${Math.floor(response.statusCode / 100)}xx`,
        },
        (performance.now() - started) / 1000,
      );
    };
    response.on('finish', written);
    response.on('close', written);
    next();
  };
}

function routeOf(request: RoutedRequest, status: number): string {
  const path = request.route?.path;
  if (typeof path === 'string') return path;
  // Static files (Swagger UI's) and answers before routing: no template, and no raw path either.
  return status === 404 ? 'unmatched' : 'other';
}
