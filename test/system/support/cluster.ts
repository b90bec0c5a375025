import { randomBytes } from 'node:crypto';
import { createTestDatabase } from '../../support/database.js';
import { AppProcess } from './app-process.js';
import { type Cleanup } from './cleanup.js';
import { startGateway, type Gateway } from './nginx.js';
import { freePort } from './ports.js';

/** Two app processes on one database behind nginx, as a scaled-out deployment runs them. */
export interface Cluster {
  /** PUBLIC_BASE_URL: the gateway's origin, on the host the options name. */
  origin: string;
  databaseUrl: string;
  gateway: Gateway;
  instances: AppProcess[];
  /** Starts instance `index` again (same port and configuration) once it has gone. */
  restart(index: number): Promise<AppProcess>;
}

export interface ClusterOptions {
  /** Added to both instances' environment. */
  env?: Record<string, string>;
  /**
   * The host of PUBLIC_BASE_URL in place of 127.0.0.1 (nginx listens there either way): `localhost`
   * gives a DNS name, which an x509_san_dns client id needs.
   */
  publicHost?: string;
}

export async function startCluster(
  cleanup: Cleanup,
  name: string,
  options: ClusterOptions = {},
): Promise<Cluster> {
  const databaseUrl = await createTestDatabase();
  const ports = [await freePort()];
  while (ports.length < 2) {
    const port = await freePort();
    if (!ports.includes(port)) ports.push(port);
  }
  const upstreams = ports.map((port) => `127.0.0.1:${port}`);
  const gateway = await startGateway(
    { app: upstreams, auth: upstreams, directory: cleanup.tempDir(`${name}-nginx`) },
    cleanup,
  );
  const origin =
    options.publicHost === undefined
      ? gateway.origin
      : `http://${options.publicHost}:${gateway.port}`;
  // One configuration for both: the same database, DATA_DIR (issuer keys) and master key.
  const env = {
    ...options.env,
    PUBLIC_BASE_URL: origin,
    DATABASE_URL: databaseUrl,
    DATA_DIR: cleanup.tempDir(`${name}-data`),
    AGENT_MASTER_KEY: randomBytes(32).toString('base64'),
  };
  const start = (index: number) =>
    AppProcess.start(
      { name: `instance-${index}`, port: ports[index], cwd: cleanup.tempDir(`${name}-cwd`), env },
      cleanup,
      90_000,
    );
  // Started together, as replicas are: the issuer key files in the shared DATA_DIR must cope with the race.
  const instances = await Promise.all(ports.map((_port, index) => start(index)));
  const restart = async (index: number) => {
    instances[index] = await start(index);
    return instances[index];
  };
  return { origin, databaseUrl, gateway, instances, restart };
}
