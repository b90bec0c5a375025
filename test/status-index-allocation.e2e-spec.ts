import { randomUUID } from 'node:crypto';
import { DataSource, type EntityManager } from 'typeorm';
import { IssueRecorder } from '../src/credentials/issuing/issue-recorder.js';
import { IssuedCredentialRepository } from '../src/credentials/issuing/issued-credential.repository.js';
import { StatusIndexAllocator } from '../src/credentials/status/status-index-allocator.js';
import { type EventOutbox } from '../src/events/event-outbox.js';
import { type DidService } from '../src/did/did.service.js';
import { type StatusListsService } from '../src/credentials/status/status-lists.service.js';
import { StatusEntryRepository } from '../src/credentials/status/status-entry.repository.js';
import { StatusListRepository } from '../src/credentials/status/status-list.repository.js';
import { startTestService, type TestService } from './support/test-service.js';
import { alumniCredential, issue } from './support/credentials-harness.js';

/**
 * Indices are taken by inserting their entries: concurrent takers of one index wait for each other and
 * one of them gets it, a full list is marked filled and the next opened, and no issue updates or locks
 * the list's row. The issue statement and the allocator on the service's real database, beside the
 * running service.
 */
describe('Status index allocation', () => {
  let service: TestService;
  let dataSource: DataSource;
  let recorder: IssueRecorder;
  let listId: string;

  beforeAll(async () => {
    service = await startTestService();
    await service.client().createTenant({ id: 'demo', label: 'Demo' });
    // The tenant's first issue opens its revocation list.
    expect((await issue(service, 'demo', alumniCredential())).status).toBe(201);
    dataSource = new DataSource({ type: 'postgres', url: service.databaseUrl, poolSize: 4 });
    await dataSource.initialize();
    const lists = { listUrl: (tenant: string, list: string) => `https://lists/${tenant}/${list}` };
    const allocator = new StatusIndexAllocator(
      lists as StatusListsService,
      new StatusEntryRepository(),
      new StatusListRepository(dataSource),
    );
    // The event's row as the outbox gives it; no subscription receives it.
    const outbox: Pick<EventOutbox, 'inStatement'> = {
      inStatement: (event, statement) =>
        statement(
          JSON.stringify({ id: randomUUID(), tenant_id: 'demo', type: event.type, body: '{}' }),
        ),
    };
    recorder = new IssueRecorder(
      new IssuedCredentialRepository(dataSource),
      allocator,
      outbox as EventOutbox,
      // An issue with an entry reads the key in its statement: the service is not asked for it.
      {} as DidService,
      dataSource,
    );
    [{ id: listId }] = await dataSource.query<{ id: string }[]>(
      `SELECT id FROM credential_status_list WHERE tenant_id = 'demo' AND purpose = 'revocation'`,
    );
  });
  afterAll(async () => {
    await dataSource?.destroy();
    await service.close();
  });

  /** An issue's record and its revocation entry, in the caller's transaction. */
  const allocate = (manager: EntityManager, credentialId: string) =>
    recorder
      .record(
        manager,
        {
          tenantId: 'demo',
          credentialId,
          types: ['VerifiableCredential'],
          cryptosuite: 'eddsa-rdfc-2022',
          issuedBy: 'test',
          purposes: ['revocation'],
        },
        null,
      )
      .then(({ entries: [entry], key }) => {
        expect(key?.did).toMatch(/^did:key:z6Mk/);
        return entry;
      });
  const listRow = async (id: string) =>
    (
      await dataSource.query<{ xmin: string; xmax: string; version: number }[]>(
        'SELECT xmin::text, xmax::text, version FROM credential_status_list WHERE id = $1',
        [id],
      )
    )[0];
  const fillAllBut = (free: number[]) =>
    dataSource.query(
      `INSERT INTO credential_status_entry (list_id, list_index, tenant_id, credential_id, purpose)
       SELECT $1, i, 'demo', 'urn:example:filler:' || i, 'revocation'
         FROM generate_series(0, 131071) i WHERE i <> ALL($2::int[])
       ON CONFLICT DO NOTHING`,
      [listId, free],
    );
  /** Runs `work` in a transaction that commits (or rolls back) only when `end` is called. */
  function held<T>(work: (manager: EntityManager) => Promise<T>) {
    let end!: (commit: boolean) => void;
    const ending = new Promise<boolean>((resolve) => (end = resolve));
    let started!: (value: T) => void;
    const result = new Promise<T>((resolve) => (started = resolve));
    const done = dataSource
      .transaction(async (manager) => {
        const value = await work(manager);
        started(value);
        if (!(await ending)) throw new Error('rolled back');
        return value;
      })
      .catch((error: Error) => error);
    return { started: () => result, end, done };
  }

  /** Resolves once some session of this database waits for a lock (polled, no time bound of its own). */
  async function waitingOnALock(): Promise<void> {
    for (;;) {
      const [row] = await dataSource.query<{ waiting: number }[]>(
        `SELECT count(*)::int AS waiting FROM pg_stat_activity
          WHERE datname = current_database() AND wait_event_type = 'Lock'`,
      );
      if ((row?.waiting ?? 0) > 0) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  it('takes an index without updating or locking the list row', async () => {
    const before = await listRow(listId);
    const entries = await Promise.all(
      Array.from({ length: 20 }, (_, n) =>
        dataSource.transaction((manager) => allocate(manager, `urn:example:parallel:${n}`)),
      ),
    );
    expect(new Set(entries.map((entry) => entry.statusListIndex)).size).toBe(20);
    expect(new Set(entries.map((entry) => entry.statusListCredential))).toEqual(
      new Set([`https://lists/demo/${listId}`]),
    );
    expect(await listRow(listId)).toEqual(before);
  });

  // The issue path's budget (docs/performance.md): the entry and the event come from the functions
  // their owners publish, called in the issue statement, not from statements of their own.
  it('writes the record, its entry and its event in one statement', async () => {
    const events = async () =>
      (
        await dataSource.query<{ n: number }[]>(
          `SELECT count(*)::int AS n FROM webhook_event
            WHERE tenant_id = 'demo' AND type = 'credential.issued'`,
        )
      )[0].n;
    const eventsBefore = await events();
    const statements: string[] = [];
    const entry = await dataSource.transaction((manager) => {
      const counted = Object.create(manager) as EntityManager;
      counted.query = (sql: string, parameters?: unknown[]) => {
        statements.push(sql);
        return manager.query(sql, parameters);
      };
      return allocate(counted, 'urn:example:one-statement');
    });
    expect(statements).toHaveLength(1);
    const [stored] = await dataSource.query<{ list_index: number }[]>(
      `SELECT list_index FROM credential_status_entry WHERE credential_id = 'urn:example:one-statement'`,
    );
    expect(String(stored?.list_index)).toBe(entry.statusListIndex);
    expect(await events()).toBe(eventsBefore + 1);
  });

  it('frees an index whose issue rolls back', async () => {
    const count = async () =>
      (
        await dataSource.query<{ n: number }[]>(
          'SELECT count(*)::int AS n FROM credential_status_entry WHERE list_id = $1',
          [listId],
        )
      )[0].n;
    const before = await count();
    const rolledBack = held((manager) => allocate(manager, 'urn:example:rolled-back'));
    await rolledBack.started();
    rolledBack.end(false);
    expect(await rolledBack.done).toBeInstanceOf(Error);
    expect(await count()).toBe(before);
  });

  it('gives the last two free indices to two issues at once, then marks the list filled', async () => {
    const taken = await dataSource.query<{ list_index: number }[]>(
      'SELECT list_index FROM credential_status_entry WHERE list_id = $1',
      [listId],
    );
    const used = new Set(taken.map((row) => row.list_index));
    const free = [0, 1, 2, 3, 4, 5].filter((index) => !used.has(index)).slice(0, 2);
    await fillAllBut(free);

    // The first holds one index uncommitted; the second waits if its search finds that one, then
    // takes the other.
    const first = held((manager) => allocate(manager, 'urn:example:last:1'));
    const firstEntry = await first.started();
    const second = held((manager) => allocate(manager, 'urn:example:last:2'));
    // The first commits once the second has either taken the other index or waits on the first's.
    await Promise.race([second.started(), waitingOnALock()]);
    first.end(true);
    const secondEntry = await second.started();
    second.end(true);
    await Promise.all([first.done, second.done]);
    expect(new Set([firstEntry.statusListIndex, secondEntry.statusListIndex])).toEqual(
      new Set(free.map(String)),
    );
    expect(secondEntry.statusListCredential).toBe(`https://lists/demo/${listId}`);

    const next = await dataSource.transaction((manager) => allocate(manager, 'urn:example:next'));
    expect(next.statusListCredential).not.toBe(`https://lists/demo/${listId}`);
    const lists = await dataSource.query<{ id: string; filled: boolean }[]>(
      `SELECT id, filled_at IS NOT NULL AS filled FROM credential_status_list
        WHERE tenant_id = 'demo' AND purpose = 'revocation' ORDER BY created_at`,
    );
    expect(lists.map((list) => list.filled)).toEqual([true, false]);
    expect(next.statusListCredential).toBe(`https://lists/demo/${lists[1].id}`);
  });

  it('opens one new list when several issues find the last one full at once', async () => {
    const [{ id: open }] = await dataSource.query<{ id: string }[]>(
      `SELECT id FROM credential_status_list
        WHERE tenant_id = 'demo' AND purpose = 'revocation' AND filled_at IS NULL`,
    );
    await dataSource.query(
      `INSERT INTO credential_status_entry (list_id, list_index, tenant_id, credential_id, purpose)
       SELECT $1, i, 'demo', 'urn:example:second-filler:' || i, 'revocation'
         FROM generate_series(0, 131071) i ON CONFLICT DO NOTHING`,
      [open],
    );
    const entries = await Promise.all(
      Array.from({ length: 4 }, (_, n) =>
        dataSource.transaction((manager) => allocate(manager, `urn:example:after-full:${n}`)),
      ),
    );
    const lists = await dataSource.query<{ id: string }[]>(
      `SELECT id FROM credential_status_list
        WHERE tenant_id = 'demo' AND purpose = 'revocation' AND filled_at IS NULL`,
    );
    expect(lists).toHaveLength(1);
    expect(lists[0].id).not.toBe(open);
    expect(new Set(entries.map((entry) => entry.statusListCredential))).toEqual(
      new Set([`https://lists/demo/${lists[0].id}`]),
    );
    expect(new Set(entries.map((entry) => entry.statusListIndex)).size).toBe(4);
  });
});
