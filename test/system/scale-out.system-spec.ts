import { queryDatabase } from '../support/database.js';
import { call, passwordGrant, postForm, tokenPath } from '../support/test-service.js';
import { type AppProcess, eventually, sleep } from './support/app-process.js';
import { Cleanup } from './support/cleanup.js';
import { startCluster, type Cluster } from './support/cluster.js';
import { attempt, describeOutcomes, runLoops, type Outcome } from './support/load.js';
import { type AccessEntry, type Gateway } from './support/nginx.js';

/**
 * Two app processes on one database and one DATA_DIR behind nginx (both in the app and the auth
 * upstreams), as a scaled-out deployment runs them. Under a steady load of reads and creates one instance
 * goes away: killed (SIGKILL), or stopped gracefully (SIGTERM).
 */
const loadDurationMs = 8_000;
const stopAfterMs = 2_000;
const readLoops = 3;
const createLoops = 2;

interface LoadResult {
  reads: Outcome[];
  /** Every attempt per tenant id, in order. */
  creates: Map<string, Outcome[]>;
  stoppedAt: number;
}

/**
 * Reads (GET /did, GET /tenants) and creates (unique ids) through nginx for loadDurationMs; after
 * stopAfterMs, `stop` runs. A failed create is tried again with the same id when `retryCreates`.
 */
async function runLoad(
  gateway: Gateway,
  token: string,
  prefix: string,
  stop: () => void,
  retryCreates: boolean,
): Promise<LoadResult> {
  const authorization = `Bearer ${token}`;
  const reads: Outcome[] = [];
  const creates = new Map<string, Outcome[]>();
  let stoppedAt = 0;
  const stopper = sleep(stopAfterMs).then(() => {
    stoppedAt = Date.now();
    stop();
  });
  await runLoops(readLoops + createLoops, loadDurationMs, async (loop, iteration) => {
    if (loop < readLoops) {
      reads.push(
        iteration % 2 === 0
          ? await attempt('read did', gateway.origin, '/ctrl/api/v1.0/did', {
              headers: { authorization, 'x-tenant-id': `${prefix}-reader` },
            })
          : await attempt('read list', gateway.origin, '/ctrl/api/v1.0/tenants', {
              headers: { authorization },
              query: { size: '5', q: prefix },
            }),
      );
      return;
    }
    const id = `${prefix}-${loop}-${iteration}`;
    const attempts: Outcome[] = [];
    creates.set(id, attempts);
    for (let tries = 0; tries < 10; tries++) {
      const outcome = await attempt('create', gateway.origin, '/ctrl/api/v1.0/tenants/create', {
        method: 'POST',
        headers: { authorization },
        query: { id, label: `Load ${id}` },
      });
      attempts.push(outcome);
      if (!retryCreates || outcome.status === 201 || outcome.status === 409) return;
      await sleep(100);
    }
  });
  await stopper;
  return { reads, creates, stoppedAt };
}

/** Every tenant with this prefix in the database, with how many DIDs it has. */
async function storedTenants(
  databaseUrl: string,
  prefix: string,
): Promise<Map<string, { dids: number; did: string | null }>> {
  const rows = await queryDatabase<{ id: string; dids: string; did: string | null }>(
    databaseUrl,
    `SELECT t.id, count(d.did) AS dids, min(d.did) AS did
       FROM tenant t LEFT JOIN tenant_did d ON d.tenant_id = t.id
      WHERE t.id LIKE $1 GROUP BY t.id`,
    [`${prefix}-%`],
  );
  return new Map(rows.map((row) => [row.id, { dids: Number(row.dids), did: row.did }]));
}

async function createReader(gateway: Gateway, token: string, prefix: string): Promise<void> {
  const created = await call(gateway.origin, '/ctrl/api/v1.0/tenants/create', {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    query: { id: `${prefix}-reader`, label: 'Reader' },
  });
  expect(created.status).toBe(201);
}

/** nginx's access log entries of the requests that one instance answered (the last upstream tried). */
function answeredBy(gateway: Gateway, instance: AppProcess): AccessEntry[] {
  return gateway
    .accessEntries()
    .filter(
      (entry) => entry.upstreams.at(-1) === `127.0.0.1:${instance.port}` && entry.status < 500,
    );
}

describe('scale-out: two instances behind nginx, one killed under load', () => {
  const cleanup = new Cleanup();
  let cluster: Cluster;
  const prefix = 'killed';

  beforeAll(async () => {
    cluster = await startCluster(cleanup, 'kill');
  }, 120_000);
  afterAll(() => cleanup.run(), 60_000);

  it('accepts on each instance the tokens and sessions the other issued', async () => {
    const [first, second] = cluster.instances;
    const tokens = await passwordGrant(first.url, 'admin', 'admin');
    const onSecond = await call(second.url, '/ctrl/api/v1.0/tenants', {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(onSecond.status).toBe(200);
    const refreshed = await postForm(second.url, tokenPath, {
      client_id: 'agent-client',
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token!,
    });
    expect(refreshed.status).toBe(200);
  });

  it('fails no read and loses or duplicates no create when one instance is killed', async () => {
    const { gateway, instances, databaseUrl } = cluster;
    const [victim, survivor] = instances;
    const token = (await passwordGrant(gateway.origin, 'admin', 'admin')).access_token;
    await createReader(gateway, token, prefix);

    const load = await runLoad(gateway, token, prefix, () => victim.signal('SIGKILL'), true);
    expect((await victim.waitForExit(5_000)).signal).toBe('SIGKILL');
    expect(survivor.running).toBe(true);

    // The load was real on both sides of the kill, and the victim had its share before it.
    const readsAfter = load.reads.filter((outcome) => outcome.startedAt > load.stoppedAt);
    expect(readsAfter.length).toBeGreaterThan(20);
    expect(answeredBy(gateway, victim).length).toBeGreaterThan(10);

    // No read failed: nginx took every one that met the dead instance to the other.
    expect(
      describeOutcomes(
        load.reads.filter((outcome) => outcome.status !== 200),
        load.stoppedAt,
      ),
    ).toBe('');

    // Every create ended in 201, or in 409 after an attempt that failed in flight (it had been stored).
    const failedInFlight: Outcome[] = [];
    const endings: string[] = [];
    for (const [id, attempts] of load.creates) {
      const last = attempts[attempts.length - 1];
      const failed = attempts.slice(0, -1);
      failedInFlight.push(...failed);
      expect({
        id,
        failed: failed.filter((outcome) => ![502, 504].includes(outcome.status)),
      }).toEqual({ id, failed: [] });
      const acceptable = failed.length === 0 ? [201] : [201, 409];
      expect({ id, last: last.status, acceptable: acceptable.includes(last.status) }).toEqual({
        id,
        last: last.status,
        acceptable: true,
      });
      endings.push(`${id}:${failed.length === 0 ? '' : 'retried->'}${last.status}`);
    }
    expect(load.creates.size).toBeGreaterThan(20);

    // The database holds exactly the tenants asked for, each once with exactly one DID.
    const stored = await storedTenants(databaseUrl, prefix);
    expect([...stored.keys()].sort()).toEqual([...load.creates.keys(), `${prefix}-reader`].sort());
    for (const [id, row] of stored) expect({ id, dids: row.dids }).toEqual({ id, dids: 1 });
    for (const [id, attempts] of load.creates) {
      const created = attempts.find((outcome) => outcome.status === 201);
      if (created !== undefined)
        expect({ id, did: (created.body as { did: string }).did }).toEqual({
          id,
          did: stored.get(id)?.did,
        });
    }

    const retriedByNginx = gateway
      .accessEntries()
      .filter((entry) => entry.upstreams.length > 1).length;
    console.log(
      `scale-out, SIGKILL: ${load.reads.length} reads (none failed; nginx retried ${retriedByNginx} ` +
        `requests on the other instance), ${load.creates.size} creates, ${failedInFlight.length} ` +
        `failed in flight (${failedInFlight.map((outcome) => outcome.status).join(', ') || 'none'}), ` +
        `endings after a retry: ${endings.filter((ending) => ending.includes('retried')).join(' ') || 'none'}`,
    );
  });
});

describe('scale-out: two instances behind nginx, one stopped gracefully under load', () => {
  const cleanup = new Cleanup();
  let cluster: Cluster;
  const prefix = 'drained';

  beforeAll(async () => {
    cluster = await startCluster(cleanup, 'term');
  }, 120_000);
  afterAll(() => cleanup.run(), 60_000);

  it('fails no request at all when one instance gets SIGTERM', async () => {
    const { gateway, instances, databaseUrl } = cluster;
    const [leaving, staying] = instances;
    const token = (await passwordGrant(gateway.origin, 'admin', 'admin')).access_token;
    await createReader(gateway, token, prefix);

    // Creates are not retried here: each must succeed at its first and only attempt.
    let exitedAt = 0;
    void leaving.exited.then(() => (exitedAt = Date.now()));
    const load = await runLoad(gateway, token, prefix, () => leaving.signal('SIGTERM'), false);
    const exit = await leaving.waitForExit(10_000);
    expect(exit).toEqual({ code: 0, signal: null });
    const lastServed = Math.max(...answeredBy(gateway, leaving).map((entry) => entry.time));
    expect(staying.running).toBe(true);
    expect(answeredBy(gateway, leaving).length).toBeGreaterThan(10);

    const failed = [...load.reads, ...[...load.creates.values()].flat()].filter(
      (outcome) => outcome.status !== 200 && outcome.status !== 201,
    );
    expect(describeOutcomes(failed, load.stoppedAt)).toBe('');

    const stored = await storedTenants(databaseUrl, prefix);
    expect([...stored.keys()].sort()).toEqual([...load.creates.keys(), `${prefix}-reader`].sort());
    for (const [id, row] of stored) expect({ id, dids: row.dids }).toEqual({ id, dids: 1 });

    // The instance that stayed serves on alone.
    await eventually(
      async () =>
        (
          await attempt('read list', gateway.origin, '/ctrl/api/v1.0/tenants', {
            headers: { authorization: `Bearer ${token}` },
          })
        ).status === 200
          ? true
          : undefined,
      5_000,
      'a read after the drain',
    );
    console.log(
      `scale-out, SIGTERM: ${load.reads.length} reads and ${load.creates.size} creates, none failed; ` +
        `the instance answered its last request ${Math.round(lastServed - load.stoppedAt)} ms and ` +
        `exited ${exitedAt - load.stoppedAt} ms after the signal`,
    );
  });
});

describe('scale-out: creates that reach an instance just as it gets SIGTERM', () => {
  const cleanup = new Cleanup();
  let cluster: Cluster;
  const prefix = 'race';

  beforeAll(async () => {
    cluster = await startCluster(cleanup, 'race');
  }, 120_000);
  afterAll(() => cleanup.run(), 60_000);

  it('answers every create that nginx sends on a pooled connection right after the SIGTERM', async () => {
    const { gateway, databaseUrl } = cluster;
    const authorization = `Bearer ${(await passwordGrant(gateway.origin, 'admin', 'admin')).access_token}`;
    const creates: Outcome[] = [];
    // The moment matters, so a few rounds: each stops instance 0 and starts it again.
    for (let round = 0; round < 3; round++) {
      if (round > 0) {
        await cluster.restart(0);
        await gateway.reload();
      }
      const [leaving, staying] = cluster.instances;
      // As under any steady load, nginx keeps idle connections to both instances (upstream keepalive).
      for (let warmUp = 0; warmUp < 3; warmUp++) {
        const warm = await Promise.all(
          Array.from({ length: 6 }, () =>
            attempt('read list', gateway.origin, '/ctrl/api/v1.0/tenants', {
              headers: { authorization },
            }),
          ),
        );
        expect(warm.map((outcome) => outcome.status)).toEqual([200, 200, 200, 200, 200, 200]);
      }

      leaving.signal('SIGTERM');
      creates.push(
        ...(await Promise.all(
          Array.from({ length: 6 }, (_unused, index) =>
            attempt('create', gateway.origin, '/ctrl/api/v1.0/tenants/create', {
              method: 'POST',
              headers: { authorization },
              query: { id: `${prefix}-${round}-${index}`, label: 'Sent as an instance stops' },
            }),
          ),
        )),
      );
      expect(staying.running).toBe(true);
      // Its exit is checked above (scale-out SIGTERM); here only the answers count.
      leaving.signal('SIGKILL');
      await leaving.waitForExit(5_000);
    }

    // Whatever the answer, the database agrees with it: a 201 is stored, anything else is not.
    const stored = await storedTenants(databaseUrl, prefix);
    const idOf = (outcome: Outcome) => outcome.requestQuery?.id ?? '';
    expect(
      creates.map((outcome) => ({ id: idOf(outcome), stored: stored.has(idOf(outcome)) })),
    ).toEqual(creates.map((outcome) => ({ id: idOf(outcome), stored: outcome.status === 201 })));
    // And none failed: an instance that is going away must not cut off a request it has been sent
    // (nginx cannot retry a POST it has sent).
    expect(describeOutcomes(creates.filter((outcome) => outcome.status !== 201))).toBe('');
  });
});
