import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { passwordGrant } from '../support/test-service.js';
import { AppProcess, eventually, sleep } from './support/app-process.js';
import { Cleanup } from './support/cleanup.js';
import { attempt, describeOutcomes, runLoops, type Outcome } from './support/load.js';
import { freePort } from './support/ports.js';
import { childrenOf, isAlive, postmasterPid } from './support/processes.js';

/**
 * `node dist/src/main.js` in local mode (embedded PostgreSQL under DATA_DIR), stopped with SIGTERM under
 * load, started again, and started twice: Ctrl-C or SIGTERM stops everything cleanly.
 */
const prefix = 'load';

describe('graceful shutdown in local mode', () => {
  const cleanup = new Cleanup();
  const dataDir = cleanup.tempDir('shutdown-data');
  let created: string[] = [];
  let keptDid: string;
  let running: AppProcess;

  afterAll(() => cleanup.run(), 60_000);

  async function startLocal(name: string): Promise<AppProcess> {
    const port = await freePort();
    return AppProcess.start(
      {
        name,
        port,
        cwd: cleanup.tempDir(`shutdown-cwd-${name}`),
        env: { PUBLIC_BASE_URL: `http://127.0.0.1:${port}`, DATA_DIR: dataDir },
      },
      cleanup,
      120_000,
    );
  }

  it('finishes every request sent before SIGTERM, exits 0 within 10 s and stops its PostgreSQL', async () => {
    const app = await startLocal('first');
    const postmaster = postmasterPid(join(dataDir, 'postgres'));
    expect(postmaster).toBeDefined();
    expect(isAlive(postmaster!)).toBe(true);
    const postgresWorkers = childrenOf(postmaster!);
    expect(postgresWorkers.length).toBeGreaterThan(0);

    const authorization = `Bearer ${(await passwordGrant(app.url, 'admin', 'admin')).access_token}`;
    const kept = await attempt('create', app.url, '/ctrl/api/v1.0/tenants/create', {
      method: 'POST',
      headers: { authorization },
      query: { id: 'kept', label: 'Kept across restarts' },
    });
    expect(kept.status).toBe(201);
    keptDid = (kept.body as { did: string }).did;

    const outcomes: Outcome[] = [];
    let signalledAt = Number.POSITIVE_INFINITY;
    const signaller = sleep(1_500).then(() => {
      signalledAt = Date.now();
      app.signal('SIGTERM');
    });
    // Four loops of reads and creates, going on a little past the signal.
    await runLoops(4, 2_500, async (loop, iteration) => {
      if (Date.now() > signalledAt + 500) return;
      outcomes.push(
        loop % 2 === 0
          ? await attempt('read did', app.url, '/ctrl/api/v1.0/did', {
              headers: { authorization, 'x-tenant-id': 'kept' },
            })
          : await attempt('create', app.url, '/ctrl/api/v1.0/tenants/create', {
              method: 'POST',
              headers: { authorization },
              query: { id: `${prefix}-${loop}-${iteration}`, label: 'Under load' },
            }),
      );
    });
    await signaller;
    const exit = await app.waitForExit(10_000);
    const exitedAfterMs = Date.now() - signalledAt;
    expect(exit).toEqual({ code: 0, signal: null });
    expect(exitedAfterMs).toBeLessThan(10_000);

    const sentBefore = outcomes.filter((outcome) => outcome.startedAt < signalledAt);
    const inFlight = sentBefore.filter((outcome) => outcome.endedAt > signalledAt);
    expect(sentBefore.length).toBeGreaterThan(20);
    expect(inFlight.length).toBeGreaterThan(0);
    expect(
      describeOutcomes(
        sentBefore.filter((outcome) => outcome.status !== 200 && outcome.status !== 201),
        signalledAt,
      ),
    ).toBe('');
    created = outcomes
      .filter((outcome) => outcome.operation === 'create' && outcome.status === 201)
      .map((outcome) => (outcome.body as { id: string }).id);

    // Its PostgreSQL went with it: the postmaster and its workers are gone, the lock file removed.
    await eventually(
      () => (isAlive(postmaster!) ? undefined : true),
      5_000,
      'the postmaster to exit',
    );
    expect(postgresWorkers.filter(isAlive)).toEqual([]);
    expect(existsSync(join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);
    expect(app.output.join('\n')).toMatch(/SIGTERM received/);
    // The last line says that it stopped, after everything was closed.
    expect(app.logRecords().at(-1)).toMatchObject({
      event: 'service.stopped',
      msg: expect.stringMatching(/^Stopped \(SIGTERM\)/) as unknown,
    });
    const sentAfter = outcomes.filter((outcome) => outcome.startedAt >= signalledAt);
    console.log(
      `shutdown: ${sentBefore.length} requests sent before SIGTERM (${inFlight.length} in flight at ` +
        `the signal), all answered; of ${sentAfter.length} sent after it, ` +
        `${sentAfter.filter((outcome) => outcome.status === 200 || outcome.status === 201).length} ` +
        `were still served; exit 0 after ${exitedAfterMs} ms`,
    );
  });

  it('starts again on the same DATA_DIR with the data kept', async () => {
    running = await startLocal('second');
    const authorization = `Bearer ${(await passwordGrant(running.url, 'admin', 'admin')).access_token}`;
    const did = await attempt('read did', running.url, '/ctrl/api/v1.0/did', {
      headers: { authorization, 'x-tenant-id': 'kept' },
    });
    expect(did.status).toBe(200);
    expect((did.body as { id: string }).id).toBe(keptDid);
    // Read every page: the number of creates depends on how fast the machine is.
    const stored: string[] = [];
    for (let page = 0; ; page++) {
      const list = await attempt('read list', running.url, '/ctrl/api/v1.0/tenants', {
        headers: { authorization },
        query: { q: `${prefix}-`, size: '100', page: String(page), sort: 'id,asc' },
      });
      expect(list.status).toBe(200);
      const body = list.body as { content: { id: string }[]; totalPages: number };
      stored.push(...body.content.map((tenant) => tenant.id));
      if (page + 1 >= body.totalPages) break;
    }
    expect(created.length).toBeGreaterThan(0);
    // Every create answered 201 is there (and no other: a create cut off would have been answered).
    expect(stored.sort()).toEqual([...created].sort());
  });

  it('refuses a second process on the same DATA_DIR with a clear message, and the first keeps serving', async () => {
    const port = await freePort();
    const intruder = await AppProcess.spawn(
      {
        name: 'intruder',
        port,
        cwd: cleanup.tempDir('shutdown-cwd-intruder'),
        env: { PUBLIC_BASE_URL: `http://127.0.0.1:${port}`, DATA_DIR: dataDir },
      },
      cleanup,
    );
    const exit = await intruder.waitForExit(30_000);
    expect(exit.code).not.toBe(0);
    expect(exit.code).not.toBeNull();
    const message = intruder.output.join('\n');
    expect(message).toMatch(/already in use/);
    expect(message).toContain(dataDir);

    const ready = await attempt('ready', running.url, '/ctrl/health/ready');
    expect(ready.status).toBe(200);
    const authorization = `Bearer ${(await passwordGrant(running.url, 'admin', 'admin')).access_token}`;
    const create = await attempt('create', running.url, '/ctrl/api/v1.0/tenants/create', {
      method: 'POST',
      headers: { authorization },
      query: { id: 'after-intruder', label: 'Still writable' },
    });
    expect(create.status).toBe(201);

    // And it still stops cleanly: the refused start left no stale lock behind.
    const postmaster = postmasterPid(join(dataDir, 'postgres'));
    running.signal('SIGTERM');
    expect(await running.waitForExit(10_000)).toEqual({ code: 0, signal: null });
    expect(isAlive(postmaster!)).toBe(false);
    expect(existsSync(join(dataDir, 'postgres', 'postmaster.pid'))).toBe(false);
  });
});
