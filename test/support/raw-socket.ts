import { connect, type Socket } from 'node:net';

export interface SocketAnswer {
  status: number;
  /** Header names in lower case. */
  headers: Record<string, string>;
  body: string;
  /** The body parsed when the answer is JSON. */
  json: unknown;
}

export interface OpenExchange {
  socket: Socket;
  /** The first answer on the socket, once its head and `content-length` bytes of body are in. */
  answer: Promise<SocketAnswer>;
  /** Settles when the server closes the connection. */
  closed: Promise<void>;
}

/**
 * Writes `bytes` to the server as they are (no client library to fix them up) and keeps the socket open,
 * as a slow or malicious client does; the caller decides what else to send and when to let go.
 */
export function openExchange(origin: string, bytes: Buffer | string): OpenExchange {
  const { hostname, port } = new URL(origin);
  const socket = connect(Number(port), hostname === 'localhost' ? '127.0.0.1' : hostname);
  let received = Buffer.alloc(0);
  let settle: ((answer: SocketAnswer) => void) | undefined;
  let fail: ((error: Error) => void) | undefined;
  const answer = new Promise<SocketAnswer>((resolve, reject) => {
    settle = resolve;
    fail = reject;
  });
  // Rejections are for those who await the answer; a socket let go unanswered is no failure.
  answer.catch(() => undefined);
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  socket.on('connect', () => socket.write(bytes));
  socket.on('error', (error) => fail?.(error));
  socket.on('data', (chunk: Buffer) => {
    received = Buffer.concat([received, chunk]);
    const parsed = parseAnswer(received);
    if (parsed !== undefined) settle?.(parsed);
  });
  socket.on('close', () =>
    fail?.(new Error(`closed without a whole answer: ${received.toString()}`)),
  );
  return { socket, answer, closed };
}

/** One request as raw bytes; the connection is closed by whichever side is first. */
export async function exchange(origin: string, bytes: Buffer | string): Promise<SocketAnswer> {
  const open = openExchange(origin, bytes);
  try {
    return await open.answer;
  } finally {
    open.socket.destroy();
  }
}

function parseAnswer(raw: Buffer): SocketAnswer | undefined {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine = '', ...lines] = raw.subarray(0, end).toString('latin1').split('\r\n');
  const headers = Object.fromEntries(
    lines.map((line) => {
      const colon = line.indexOf(':');
      return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()];
    }),
  );
  const length = Number(headers['content-length'] ?? 0);
  if (raw.length < end + 4 + length) return undefined;
  const body = raw.subarray(end + 4, end + 4 + length).toString('utf8');
  const json =
    /json/.test(headers['content-type'] ?? '') && body !== '' ? JSON.parse(body) : undefined;
  return { status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1]), headers, body, json };
}
