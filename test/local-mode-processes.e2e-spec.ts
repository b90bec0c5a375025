import { createServer, type AddressInfo } from 'node:net';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { call, freePort, passwordGrant } from './support/test-service.js';
import { AppProcess } from './system/support/app-process.js';
import { Cleanup } from './system/support/cleanup.js';

/**
 * `kill -9` of the service: its watchdog stops the embedded PostgreSQL (docs/operations.md); were the
 * watchdog gone too, the next start stops that orphan. Both come up on the same data, as `npm start`
 * runs the service (a child process).
 */
describe('local mode after kill -9', () => {
  const cleanup = new Cleanup();
  afterAll(() => cleanup.run(), 60_000);
  // One DATA_DIR for both tests, in order: the second goes on from the first's data (one initdb).
  const dataDir = cleanup.tempDir('killed-data');

  const alive = (pid: number) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };

  /** Polls `condition` every 100 ms until it holds, failing after `timeoutMs` (never a fixed wait). */
  const eventually = async (condition: () => boolean, timeoutMs: number, what: string) => {
    const deadline = Date.now() + timeoutMs;
    while (!condition()) {
      if (Date.now() > deadline) throw new Error(`${what} did not happen within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  /** The watchdog of the cluster under `dataDir`, by its command line (Linux's /proc). */
  const watchdogOf = (dataDir: string): number | undefined => {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const command = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
        if (
          command.some((part) => part.endsWith('embedded-postgres-watchdog.js')) &&
          command.includes(join(dataDir, 'postgres'))
        )
          return Number(entry);
      } catch {
        // Gone meanwhile.
      }
    }
    return undefined;
  };

  const startIn = async (dataDir: string, name: string) => {
    const port = await freePort();
    return AppProcess.start(
      {
        name,
        port,
        cwd: cleanup.tempDir(`${name}-cwd`),
        env: { DATA_DIR: dataDir, PUBLIC_BASE_URL: `http://127.0.0.1:${port}` },
      },
      cleanup,
      120_000,
    );
  };

  const postmasterOf = (dataDir: string) => {
    const postmaster = Number(
      readFileSync(join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0],
    );
    // Whatever happens below, no PostgreSQL outlives the test.
    cleanup.add('stop the orphaned PostgreSQL', () => {
      if (alive(postmaster)) process.kill(postmaster, 'SIGINT');
    });
    return postmaster;
  };

  const createTenant = async (url: string, id: string) => {
    const { access_token: token } = await passwordGrant(url, 'admin', 'admin');
    const created = await call(url, '/ctrl/api/v1.0/tenants/create', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      query: { id, label: 'Outlives a kill -9' },
    });
    expect(created.status).toBe(201);
  };

  const readsTenant = async (url: string, id: string) => {
    const { access_token: token } = await passwordGrant(url, 'admin', 'admin');
    const read = await call<{ id: string }>(url, `/ctrl/api/v1.0/tenants/${id}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect({ status: read.status, id: read.body.id }).toEqual({ status: 200, id });
  };

  it('stops the PostgreSQL of a killed service through its watchdog, which then exits; the next start has the data', async () => {
    const first = await startIn(dataDir, 'watched');
    const postmaster = postmasterOf(dataDir);
    const watchdog = watchdogOf(dataDir);
    expect(watchdog).toEqual(expect.any(Number));
    await createTenant(first.url, 'watched');

    first.signal('SIGKILL');
    await first.exited;
    await eventually(() => !alive(postmaster), 20_000, 'PostgreSQL stopping');
    await eventually(() => !alive(watchdog!), 20_000, 'the watchdog exiting');

    const second = await startIn(dataDir, 'watched-again');
    await readsTenant(second.url, 'watched');
    expect(second.log(200)).not.toMatch(/left running/);
    const secondWatchdog = watchdogOf(dataDir)!;
    expect(secondWatchdog).not.toBe(watchdog);
    // Stopped in order, the service stops its PostgreSQL itself; its watchdog exits with it.
    await second.stop();
    expect(await second.exited).toEqual({ code: 0, signal: null });
    await eventually(() => !alive(secondWatchdog), 20_000, 'the second watchdog exiting');
  });

  it('starts again on the same DATA_DIR, with the data, when the orphaned PostgreSQL still runs', async () => {
    const first = await startIn(dataDir, 'first');
    // While its service lives, the cluster stays its own.
    const intruder = await AppProcess.spawn(
      {
        name: 'intruder',
        cwd: cleanup.tempDir('intruder-cwd'),
        env: { DATA_DIR: dataDir },
      },
      cleanup,
    );
    expect(await intruder.waitForExit(60_000)).toEqual({ code: 1, signal: null });
    expect(intruder.log()).toContain(`already in use by another process (pid ${first.pid})`);
    const postmaster = postmasterOf(dataDir);
    await createTenant(first.url, 'orphaned');

    // The watchdog killed first (as a kill of every process would), then the service.
    process.kill(watchdogOf(dataDir)!, 'SIGKILL');
    first.signal('SIGKILL');
    await first.exited;
    expect(alive(postmaster)).toBe(true);

    const second = await startIn(dataDir, 'second');
    expect(alive(postmaster)).toBe(false);
    await readsTenant(second.url, 'orphaned');
    expect(second.log(200)).toMatch(/Stopped the embedded PostgreSQL .* left running/);
    await second.stop();
    expect(await second.exited).toEqual({ code: 0, signal: null });
  });
});

describe('local mode on a taken port', () => {
  const cleanup = new Cleanup();
  afterAll(() => cleanup.run(), 60_000);

  it('exits with 1 and one line naming PORT, without a stack, before starting the database', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    cleanup.add(
      'close the port holder',
      () => new Promise<void>((resolve) => holder.close(() => resolve())),
    );
    const port = (holder.address() as AddressInfo).port;
    const refused = await AppProcess.spawn(
      {
        name: 'taken-port',
        port,
        cwd: cleanup.tempDir('taken-port-cwd'),
        env: { DATA_DIR: cleanup.tempDir('taken-port-data') },
      },
      cleanup,
    );
    expect(await refused.waitForExit(120_000)).toEqual({ code: 1, signal: null });
    const fatal = refused.logRecords().filter((record) => record.level === 'fatal');
    expect(fatal).toEqual([
      expect.objectContaining({
        msg: `Configuration error: PORT: port ${port} on 127.0.0.1 is already in use (another process, or this service started twice): stop it or choose another PORT`,
      }),
    ]);
    expect(refused.log(400)).not.toMatch(/EADDRINUSE|\n\s+at /);
    // Said before the slow steps: no database was started for it.
    expect(refused.logRecords().filter((record) => record.event === 'start.step')).toEqual([]);
  });
});
