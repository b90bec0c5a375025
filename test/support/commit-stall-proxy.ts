import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy in front of PostgreSQL that can lose the answer to a COMMIT: once armed, the first
 * connection that sends `trigger` (a piece of SQL) and then COMMIT has the COMMIT delivered to the server,
 * which applies it, while the server's answer is held back for good. That is the database freezing (or
 * the network failing) just after a COMMIT arrived, as docs/operations.md describes it.
 */
export interface CommitStallProxy {
  /** The database URL through the proxy. */
  readonly url: string;
  /** Loses the answer to the next COMMIT of a transaction that sent `trigger`. */
  arm(trigger: string): void;
  /** Resolves once a COMMIT's answer was held back. */
  readonly stalled: () => Promise<void>;
  close(): Promise<void>;
}

export async function startCommitStallProxy(databaseUrl: string): Promise<CommitStallProxy> {
  const target = new URL(databaseUrl);
  let trigger: string | undefined;
  let onStall: () => void = () => undefined;
  let stalled = new Promise<void>((resolve) => (onStall = resolve));
  const sockets = new Set<Socket>();

  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    sockets.add(client).add(upstream);
    let seen = '';
    let sawTrigger = false;
    let holding = false;
    client.on('data', (chunk: Buffer) => {
      if (trigger !== undefined && !holding) {
        // Statements are short next to this window; 256 characters of context cover a split message.
        seen = (seen + chunk.toString('latin1')).slice(-256 - chunk.length);
        if (!sawTrigger && seen.includes(trigger)) {
          sawTrigger = true;
          // Only a COMMIT after the trigger counts.
          seen = seen.slice(seen.lastIndexOf(trigger));
        }
        if (sawTrigger && seen.includes('COMMIT\0')) {
          holding = true;
          trigger = undefined;
        }
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (holding) {
        onStall();
        return;
      }
      client.write(chunk);
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const proxied = new URL(databaseUrl);
  proxied.hostname = '127.0.0.1';
  proxied.port = String((server.address() as AddressInfo).port);
  return {
    url: proxied.toString(),
    arm: (sql) => {
      trigger = sql;
      stalled = new Promise<void>((resolve) => (onStall = resolve));
    },
    stalled: () => stalled,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
