import { createServer, type Server } from 'node:https';
import { type ServerResponse } from 'node:http';
import { type AddressInfo } from 'node:net';
import { type TestCa } from './test-ca.js';

export interface HttpsOrigin {
  /** https://localhost:<port> */
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
export async function startHttpsOrigin(ca: TestCa): Promise<HttpsOrigin> {
  const routes = new Map<string, (response: ServerResponse) => void>();
  const hits = new Map<string, number>();
  const server: Server = createServer(await ca.serverCertificate(), (request, response) => {
    const path = request.url ?? '';
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const route = routes.get(path);
    if (route === undefined) {
      response.writeHead(404);
      return void response.end();
    }
    route(response);
  });
  // Both loopback families: `localhost` may resolve to either first.
  await new Promise<void>((resolve) => server.listen(0, 'localhost', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `https://localhost:${port}`,
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
