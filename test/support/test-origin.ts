import { createServer as createHttpsServer } from 'node:https';
import {
  createServer as createHttpServer,
  type RequestListener,
  type Server,
  type ServerResponse,
} from 'node:http';
import { type AddressInfo } from 'node:net';
import { type TestCa } from './test-ca.js';

export interface TestOrigin {
  /** https://localhost:<port> (http://127.0.0.1:<port> for a plain http origin) */
  readonly origin: string;
  /** The host as a did:web writes it: `localhost%3A<port>`. */
  readonly didWebHost: string;
  /** Answers at a path; unset paths answer 404. */
  readonly routes: Map<string, (response: ServerResponse) => void>;
  /** Requests per path. */
  readonly hits: Map<string, number>;
  /** `body` as JSON at `path`, 200, with `cache-control` (no-store unless given). */
  json(path: string, body: unknown, cacheControl?: string): void;
  close(): Promise<void>;
}

/** An https server on loopback with a certificate of `ca`: a DID's or status list's origin. */
export async function startHttpsOrigin(ca: TestCa): Promise<TestOrigin> {
  const certificate = await ca.serverCertificate();
  return startOrigin((listener) => createHttpsServer(certificate, listener), 'https', 'localhost');
}

/** The same over plain http on 127.0.0.1: what only a relaxed outbound policy may reach. */
export function startHttpOrigin(): Promise<TestOrigin> {
  return startOrigin((listener) => createHttpServer(listener), 'http', '127.0.0.1');
}

async function startOrigin(
  create: (listener: RequestListener) => Server,
  scheme: 'http' | 'https',
  host: string,
): Promise<TestOrigin> {
  const routes = new Map<string, (response: ServerResponse) => void>();
  const hits = new Map<string, number>();
  const server = create((request, response) => {
    const path = request.url ?? '';
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const route = routes.get(path);
    if (route === undefined) {
      response.writeHead(404);
      return void response.end();
    }
    route(response);
  });
  // `localhost` listens on both loopback families: it may resolve to either first.
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `${scheme}://${host}:${port}`,
    didWebHost: `localhost%3A${port}`,
    routes,
    hits,
    json(path, body, cacheControl = 'no-store') {
      routes.set(path, (response) => {
        response.writeHead(200, {
          'content-type': 'application/json',
          'cache-control': cacheControl,
        });
        response.end(JSON.stringify(body));
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
