import { type Server } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { stopAccepting } from '../common/stop-accepting.js';
import { type EmbeddedDatabase } from '../database/embedded-postgres.js';
import { type HttpApp } from './create-http-app.js';

const shutdownGraceMs = 8_000;
const drainPollMs = 100;

/** What a started service holds, in the order the drain lets go of it. */
export interface Holdings {
  readonly http: HttpApp;
  readonly management: { server: Server } | undefined;
  readonly embedded: EmbeddedDatabase | undefined;
  /** Gives the service's own ports back to outbound requests (common/outbound.ts). */
  readonly releaseOwnPorts: () => void;
  /** How long idle connections are left for their client to close (SHUTDOWN_IDLE_WAIT_MS). */
  readonly idleWaitMs: number;
}

function openConnections(server: Server): Promise<number> {
  return new Promise((resolve) =>
    server.getConnections((error, count) => resolve(error ? 0 : count)),
  );
}

/**
 * Drain: refuse new connections at once (a proxy retries a refused connect elsewhere, even for a POST),
 * answer on the open ones with Connection: close and leave idle ones for their client to close (a POST
 * sent on a connection cut while idle could not be retried); after a moment close what is still idle
 * (server.close; SHUTDOWN_IDLE_WAIT_MS), wait for the requests in flight, and cut whatever is left after the grace period.
 * Then the management port, the database and the embedded PostgreSQL.
 */
export async function drain({
  http,
  management,
  embedded,
  releaseOwnPorts,
  idleWaitMs,
}: Holdings): Promise<void> {
  const { app, server, dataSource, draining } = http;
  draining.active = true;
  stopAccepting(server);
  for (let waited = 0; waited < idleWaitMs && (await openConnections(server)) > 0;) {
    await sleep(drainPollMs);
    waited += drainPollMs;
  }
  const force = setTimeout(() => server.closeAllConnections(), shutdownGraceMs - idleWaitMs);
  force.unref();
  await app.close();
  clearTimeout(force);
  management?.server.closeAllConnections();
  management?.server.close();
  if (dataSource.isInitialized) await dataSource.destroy();
  await embedded?.stop();
  releaseOwnPorts();
}
