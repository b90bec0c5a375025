import { type IncomingMessage } from 'node:http';

/** The request announces a body (RFC 9112 §6.3: a length or a transfer coding). */
export function hasBody(request: IncomingMessage): boolean {
  const length = request.headers['content-length'];
  return (
    (length !== undefined && length !== '0') || request.headers['transfer-encoding'] !== undefined
  );
}
