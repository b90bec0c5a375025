import { AsyncLocalStorage } from 'node:async_hooks';
import { type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type DataSource } from 'typeorm';

/** The statements (their text, whitespace folded) of the requests a test marked, in the order sent. */
export interface StatementLog {
  /** Runs `request`, logging the statements of every HTTP request to `path` meanwhile. */
  during<T>(path: string, request: () => Promise<T>): Promise<{ result: T; statements: string[] }>;
  /** Puts the pool and the server back as they were. */
  restore(): void;
}

type Query = (...args: unknown[]) => unknown;
type Listener = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * Counts round trips, not time: every statement a pooled client sends while it serves a marked HTTP
 * request (the request's async context, so the webhook poller and other requests are not counted),
 * BEGIN and COMMIT included. A test hook on the service's own pool and HTTP server.
 */
export function logStatements(dataSource: DataSource, server: Server): StatementLog {
  const context = new AsyncLocalStorage<string[]>();
  const pool = (dataSource.driver as unknown as { master: { Client: { prototype: object } } })
    .master;
  const prototype = pool.Client.prototype as { query: Query };
  const query = prototype.query;
  prototype.query = function (this: unknown, ...args: unknown[]) {
    const log = context.getStore();
    if (log !== undefined) {
      const [config] = args;
      const text = typeof config === 'string' ? config : (config as { text?: string }).text;
      log.push(String(text).trim().replace(/\s+/g, ' '));
    }
    return query.apply(this, args);
  };
  const listeners = server.listeners('request') as Listener[];
  let marked: { path: string; log: string[] } | undefined;
  server.removeAllListeners('request');
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const log = marked !== undefined && request.url === marked.path ? marked.log : undefined;
    for (const listener of listeners) {
      if (log === undefined) listener(request, response);
      else context.run(log, () => listener(request, response));
    }
  });
  return {
    async during(path, request) {
      const log: string[] = [];
      marked = { path, log };
      try {
        return { result: await request(), statements: log };
      } finally {
        marked = undefined;
      }
    },
    restore() {
      prototype.query = query;
      server.removeAllListeners('request');
      for (const listener of listeners) server.on('request', listener);
    },
  };
}
