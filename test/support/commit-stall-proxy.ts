import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy in front of PostgreSQL that can lose the answer to a COMMIT: once armed, the first
 * connection that sends `trigger` (a piece of SQL, or runs a statement prepared with it) and then COMMIT has the COMMIT delivered to the server,
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

  // The text of every statement prepared through the proxy: the service prepares its statements, so
  // after the first time a connection sends only the name.
  const prepared = new Map<string, string>();
  let arming = 0;

  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    sockets.add(client).add(upstream);
    const messages = new FrontendMessages();
    // The arming in which this connection's current transaction sent the trigger, if it did.
    let sawTriggerIn: number | undefined;
    let holding = false;
    client.on('data', (chunk: Buffer) => {
      for (const message of messages.read(chunk)) {
        if (
          message.statement !== undefined &&
          message.statement !== '' &&
          message.sql !== undefined
        )
          prepared.set(message.statement, message.sql);
        if (trigger === undefined || holding) continue;
        const sql = message.sql ?? (message.bound === undefined ? '' : prepared.get(message.bound));
        const ending = sql?.trim();
        if (sql?.includes(trigger)) {
          sawTriggerIn = arming;
        } else if (sawTriggerIn === arming && ending === 'COMMIT') {
          // Only a COMMIT of the transaction that sent the trigger, since the last arm(), counts.
          holding = true;
          trigger = undefined;
        } else if (
          ending !== undefined &&
          /^(COMMIT|ROLLBACK|BEGIN|START TRANSACTION)/.test(ending)
        ) {
          sawTriggerIn = undefined;
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
      arming++;
      stalled = new Promise<void>((resolve) => (onStall = resolve));
    },
    stalled: () => stalled,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** What the proxy reads of a client message: its SQL (Query, Parse), the name it prepares or binds. */
interface FrontendMessage {
  sql?: string;
  statement?: string;
  bound?: string;
}

/**
 * The client's side of PostgreSQL's wire protocol, split into messages: the first one (startup or SSL
 * request) has no type byte, every later one a type byte and a length that counts itself.
 */
class FrontendMessages {
  private buffered = Buffer.alloc(0);
  private started = false;

  read(chunk: Buffer): FrontendMessage[] {
    this.buffered = Buffer.concat([this.buffered, chunk]);
    const messages: FrontendMessage[] = [];
    for (;;) {
      const typed = this.started ? 1 : 0;
      if (this.buffered.length < typed + 4) return messages;
      const length = this.buffered.readInt32BE(typed);
      if (this.buffered.length < typed + length) return messages;
      const type = typed === 1 ? String.fromCharCode(this.buffered[0] ?? 0) : '';
      const body = this.buffered.subarray(typed + 4, typed + length);
      this.buffered = this.buffered.subarray(typed + length);
      // An SSL or GSS request is answered before the startup message, which also has no type byte.
      if (!this.started) this.started = length !== 8;
      const strings = body.toString('latin1').split('\0');
      if (type === 'Q') messages.push({ sql: strings[0] });
      else if (type === 'P') messages.push({ statement: strings[0], sql: strings[1] });
      else if (type === 'B') messages.push({ bound: strings[1] });
    }
  }
}
