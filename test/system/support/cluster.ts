import { randomBytes } from 'node:crypto';
import { createTestDatabase } from '../../support/database.js';
import { AppProcess } from './app-process.js';
import { type Cleanup } from './cleanup.js';
import { startGateway, type Gateway } from './nginx.js';
import { freePort } from './ports.js';

/** Two app processes on one database behind nginx, as a scaled-out deployment runs them. */
export interface Cluster {
  databaseUrl: string;
  gateway: Gateway;
  instances: AppProcess[];
  /** Starts instance `index` again (same port and configuration) once it has gone. */
  restart(index: number): Promise<AppProcess>;
}

export async function startCluster(cleanup: Cleanup, name: string): Promise<Cluster> {
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
  // One configuration for both: the same database, DATA_DIR (issuer keys) and master key.
  const env = {
    PUBLIC_BASE_URL: gateway.origin,
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
  return { databaseUrl, gateway, instances, restart };
}
