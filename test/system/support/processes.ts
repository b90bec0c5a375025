import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The PIDs of every process whose parent is `pid` (from /proc). */
export function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The command may hold spaces and parentheses: the parent PID follows the last ')'.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (parent === pid) children.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return children;
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The postmaster's PID from the lock file of a PostgreSQL cluster directory, if it runs. */
export function postmasterPid(clusterDirectory: string): number | undefined {
  const lockFile = join(clusterDirectory, 'postmaster.pid');
  if (!existsSync(lockFile)) return undefined;
  return Number(readFileSync(lockFile, 'utf8').split('\n')[0]);
}
