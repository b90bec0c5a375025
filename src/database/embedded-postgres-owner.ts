import { type Logger } from '@nestjs/common';
import { execFile } from 'node:child_process';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';

/** Clusters this process has taken: a second take in the same process is refused like any other. */
const takenHere = new Set<string>();

const orphanStopTimeoutMs = 30_000;
const orphanPollMs = 100;

export class ClusterInUseError extends Error {
  constructor(directory: string, owner: number | undefined) {
    super(
      `The embedded PostgreSQL in ${directory} is already in use by another process` +
        `${owner === undefined ? '' : ` (pid ${owner})`} (is the service already running?). ` +
        'Stop it, or set DATA_DIR to another folder.',
    );
    this.name = 'ClusterInUseError';
  }
}

/**
 * Takes the cluster in `directory` for this process, before its PostgreSQL starts. A file beside the
 * cluster (`postgres.owner`, created exclusively) names the owning service's pid: while that process
 * lives the cluster stays its own (ClusterInUseError). When it is gone (`kill -9`), the PostgreSQL it
 * left running is stopped first, so that this start can run its own. Returns the release.
 */
export async function takeCluster(directory: string, logger: Logger): Promise<() => Promise<void>> {
  const ownerFile = join(dirname(directory), 'postgres.owner');
  for (let attempt = 0; ; attempt++) {
    try {
      await writeFile(ownerFile, `${process.pid}\n`, { flag: 'wx', mode: 0o600 });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = await readPid(ownerFile);
    // The same pid in another process is a restart that reused it (a container's pid 1, say).
    const ownerLives =
      owner !== undefined && (owner === process.pid ? takenHere.has(directory) : isAlive(owner));
    if (ownerLives || attempt > 0) throw new ClusterInUseError(directory, owner);
    await rm(ownerFile, { force: true });
  }
  takenHere.add(directory);
  try {
    await stopOrphan(directory, logger);
  } catch (error) {
    takenHere.delete(directory);
    await rm(ownerFile, { force: true });
    throw error;
  }
  return async () => {
    takenHere.delete(directory);
    if ((await readPid(ownerFile)) === process.pid) await rm(ownerFile, { force: true });
  };
}

/**
 * The PostgreSQL that `postmaster.pid` (its first line) names, if it still runs on this cluster: its owner is gone (the
 * caller holds the cluster now), so it gets a fast shutdown (SIGINT) and is waited for.
 */
async function stopOrphan(directory: string, logger: Logger): Promise<void> {
  const pid = await readPid(join(directory, 'postmaster.pid'), true);
  // A stale file's pid may belong to any process by now: signal only PostgreSQL on this cluster.
  if (pid === undefined || !isAlive(pid)) return;
  const command = await commandOf(pid);
  if (command === undefined || !command.includes('postgres') || !command.includes(directory))
    return;
  process.kill(pid, 'SIGINT');
  for (let waited = 0; isAlive(pid); waited += orphanPollMs) {
    if (waited >= orphanStopTimeoutMs) {
      throw new Error(
        `The embedded PostgreSQL (pid ${pid}) that a stopped service left running in ${directory} ` +
          `did not stop within ${orphanStopTimeoutMs / 1000} s; stop it, then start again.`,
      );
    }
    await sleep(orphanPollMs);
  }
  logger.warn(
    `Stopped the embedded PostgreSQL (pid ${pid}) that a service which is gone left running in ${directory}`,
  );
}

/** Whether a live process holds the cluster's `postmaster.pid` (PostgreSQL's own lock file). */
export async function postmasterRuns(directory: string): Promise<boolean> {
  const pid = await readPid(join(directory, 'postmaster.pid'), true);
  return pid !== undefined && isAlive(pid);
}

async function readPid(file: string, firstLineOnly = false): Promise<number | undefined> {
  try {
    const text = await readFile(file, 'utf8');
    const pid = Number((firstLineOnly ? text.split('\n')[0] : text).trim());
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, as another user (PostgreSQL runs as `postgres` when the service is root).
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A process's command line: /proc on Linux, `ps` elsewhere (macOS); undefined if neither tells. */
async function commandOf(pid: number): Promise<string | undefined> {
  try {
    return (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0').join(' ');
  } catch {
    try {
      const { stdout } = await promisify(execFile)('ps', ['-o', 'command=', '-p', String(pid)]);
      return stdout.trim();
    } catch {
      return undefined;
    }
  }
}
