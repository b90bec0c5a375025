import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { type Registry } from 'prom-client';

/**
 * The management port: `GET /metrics` in Prometheus's text format, nothing else. It is a port of its
 * own so that the public origin (nginx) never serves it.
 */
export async function startMetricsServer(
  registry: Registry,
  port: number,
  host: string | undefined,
): Promise<{ server: Server; port: number }> {
  const server = createServer((request, response) => {
    if (request.method !== 'GET' || request.url?.split('?')[0] !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('Only GET /metrics is here.\n');
      return;
    }
    registry.metrics().then(
      (text) => response.writeHead(200, { 'content-type': registry.contentType }).end(text),
      (error: unknown) => {
        response.writeHead(500, { 'content-type': 'text/plain' });
        response.end(`Metrics could not be collected: ${String(error)}\n`);
      },
    );
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.removeListener('error', reject);
      resolve();
    });
  });
  return { server, port: (server.address() as AddressInfo).port };
}
