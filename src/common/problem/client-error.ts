import { type Server } from 'node:http';
import { type Duplex } from 'node:stream';
import { errorCatalog } from './error-codes.js';
import { problemTypeUri } from './problem-response.js';
import { problemContentType, type ProblemDetails } from './problem.js';

const details: Record<'HEADERS_TOO_LARGE' | 'REQUEST_TIMEOUT' | 'MALFORMED_REQUEST', string> = {
  HEADERS_TOO_LARGE: 'The request headers are larger than the server accepts.',
  REQUEST_TIMEOUT: 'The request did not arrive in time.',
  MALFORMED_REQUEST: 'The request is not valid HTTP.',
};

/**
 * Requests that Node's HTTP parser refuses before any handler runs (oversized headers, broken framing)
 * or that take longer than the server's timeouts are answered in problem form too, instead of Node's bare
 * status line.
 */
export function answerClientErrorsAsProblems(server: Server, publicBaseUrl: string): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const code: keyof typeof details =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? 'HEADERS_TOO_LARGE'
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? 'REQUEST_TIMEOUT'
          : 'MALFORMED_REQUEST';
    const { status, title } = errorCatalog[code];
    const problem: ProblemDetails = {
      type: problemTypeUri(publicBaseUrl, code),
      title,
      status,
      detail: details[code],
      instance: requestPath(error),
      code,
    };
    const body = JSON.stringify(problem);
    socket.end(
      `HTTP/1.1 ${status} ${title}\r\n` +
        `Content-Type: ${problemContentType}; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        'Cache-Control: no-store\r\nConnection: close\r\n\r\n' +
        body,
    );
  });
}

/** The path of the refused request, from the bytes the parser saw (`GET /path?query HTTP/1.1`). */
function requestPath(error: NodeJS.ErrnoException & { rawPacket?: unknown }): string {
  const raw = Buffer.isBuffer(error.rawPacket)
    ? error.rawPacket.subarray(0, 2048).toString('latin1')
    : '';
  const target = /^[A-Z]+ (\/[^ ?\r\n]*)/.exec(raw)?.[1];
  return target ?? '/';
}
