import { type Server } from 'node:http';
import { Server as NetServer } from 'node:net';

/**
 * Stops accepting connections and keeps the open ones, idle keep-alive connections included:
 * net.Server's documented close, which http.Server's close extends by cutting idle connections (a
 * request a proxy is just sending on one would be lost, and a POST cannot be retried). A test in
 * `stop-accepting.spec.ts` fails if Node.js changes either behaviour.
 */
export function stopAccepting(server: Server): void {
  NetServer.prototype.close.call(server);
}
