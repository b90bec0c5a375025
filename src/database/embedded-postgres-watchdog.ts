/**
 * Stops the embedded PostgreSQL once the service that started it is gone, however it ended (`kill -9`
 * included), and exits with it. `embedded-postgres.ts` starts it detached, with nothing but Node's
 * built-ins: `node embedded-postgres-watchdog.js <service pid> <postmaster pid> <cluster directory>`.
 * Every second it looks: PostgreSQL gone (stopped by its service, or by a new start that took the
 * cluster) → it exits; the service gone → a fast shutdown (SIGINT) of that postmaster, unless a new
 * service holds the cluster already, then it waits at most 30 s for it and exits.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const pollMs = 1_000;
const stopWaitMs = 30_000;

const [servicePid, postmasterPid] = process.argv.slice(2, 4).map(Number);
const directory = process.argv[4] ?? '';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, as another user (PostgreSQL runs as `postgres` when the service is root).
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function pidIn(file: string): number | undefined {
  try {
    const pid = Number(readFileSync(file, 'utf8').split('\n')[0].trim());
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Still our PostgreSQL: its lock file names it, and (where /proc tells) it runs on this cluster. */
function ourPostmasterRuns(): boolean {
  if (!alive(postmasterPid) || pidIn(join(directory, 'postmaster.pid')) !== postmasterPid)
    return false;
  try {
    const command = readFileSync(`/proc/${postmasterPid}/cmdline`, 'utf8').split('\0').join(' ');
    return command.includes('postgres') && command.includes(directory);
  } catch {
    return true;
  }
}

/** Another live service holds the cluster (`postgres.owner`, embedded-postgres-owner.ts). */
function takenOver(): boolean {
  const owner = pidIn(join(dirname(directory), 'postgres.owner'));
  return owner !== undefined && owner !== servicePid && alive(owner);
}

function stopAndExit(): void {
  if (takenOver()) process.exit(0);
  process.kill(postmasterPid, 'SIGINT');
  const deadline = Date.now() + stopWaitMs;
  setInterval(() => {
    if (!alive(postmasterPid) || Date.now() > deadline) process.exit(0);
  }, 100);
}

if (!Number.isSafeInteger(servicePid) || !Number.isSafeInteger(postmasterPid) || directory === '')
  process.exit(2);
const watch = setInterval(() => {
  if (!ourPostmasterRuns()) process.exit(0);
  if (alive(servicePid)) return;
  clearInterval(watch);
  stopAndExit();
}, pollMs);
