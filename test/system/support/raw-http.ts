import { createServer, type IncomingMessage, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { type Cleanup } from './cleanup.js';

export interface RawResponse {
  status: number;
  /** Header names in lower case. */
  headers: Record<string, string>;
  body: string;
}

/**
 * One HTTP/1.1 request whose request line is written byte for byte: fetch and http.request normalise or
 * refuse some targets (`..`, `\`), which is exactly what an attacker does not do.
 */
export function rawRequest(
  origin: string,
  target: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<RawResponse> {
  const { hostname, port } = new URL(origin);
  const body = options.body ?? '';
  const headers: Record<string, string> = {
    host: `${hostname}:${port}`,
    connection: 'close',
    ...options.headers,
  };
  if (body !== '') headers['content-length'] = String(Buffer.byteLength(body));
  const head =
    `${options.method ?? 'GET'} ${target} HTTP/1.1\r\n` +
    Object.entries(headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    // write, not end: nginx takes a half-closed connection for a client that gave up (499).
    const socket: Socket = connect(Number(port), hostname, () =>
      socket.write(`${head}\r\n${body}`, 'latin1'),
    );
    socket.setTimeout(10_000, () => socket.destroy(new Error(`no answer to ${target}`)));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      try {
        resolve(parseResponse(Buffer.concat(chunks).toString('utf8')));
      } catch (error) {
        reject(new Error(`unreadable answer to ${target}`, { cause: error }));
      }
    });
  });
}

function parseResponse(raw: string): RawResponse {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) throw new Error(`no complete response head: ${JSON.stringify(raw.slice(0, 200))}`);
  const [statusLine, ...lines] = raw.slice(0, end).split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1]);
  const headers = Object.fromEntries(
    lines.map((line) => {
      const colon = line.indexOf(':');
      return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()];
    }),
  );
  let body = raw.slice(end + 4);
  if (headers['content-length'] !== undefined)
    body = Buffer.from(body).subarray(0, Number(headers['content-length'])).toString('utf8');
  return { status, headers, body };
}

export interface RecordedRequest {
  method: string;
  /** The request target exactly as it arrived (Node keeps it raw in `url`). */
  target: string;
  body: string;
}

export interface RecordingUpstream {
  /** host:port for AUTH_UPSTREAMS. */
  readonly address: string;
  /** Every request that arrived, also those Node's parser refused (their first line as target). */
  readonly requests: RecordedRequest[];
}

/**
 * A stand-in for Keycloak that answers every request with 200 and records what reached it: the proof
 * that nginx forwarded a request, whatever the upstream would have made of it.
 */
export async function startRecordingUpstream(cleanup: Cleanup): Promise<RecordingUpstream> {
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((request: IncomingMessage, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      const target = request.url ?? '';
      requests.push({ method: request.method ?? '', target, body });
      const answer = JSON.stringify({ recorded: target });
      response.writeHead(200, {
        'content-type': target.split('?')[0].endsWith('.css') ? 'text/css' : 'application/json',
        'content-length': Buffer.byteLength(answer),
      });
      response.end(answer);
    });
  });
  server.on('clientError', (error: Error & { rawPacket?: unknown }, socket) => {
    const raw = Buffer.isBuffer(error.rawPacket) ? error.rawPacket.toString('latin1') : '';
    // An empty packet is a closed idle connection, not a request.
    if (raw !== '') requests.push({ method: '?', target: raw.split('\r\n', 1)[0], body: '' });
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanup.add('stop the recording upstream', async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return { address: `127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}
