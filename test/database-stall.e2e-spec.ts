import pg from 'pg';
import {
  createPath,
  deletePath,
  tenantPath,
  tenantsPath,
  updatePath,
  type Tenant,
} from './support/api-shapes.js';
import { queryDatabase } from './support/database.js';
import { startTestService, type ApiResponse, type TestService } from './support/test-service.js';

/**
 * A database that stalls longer than the service waits (api.md, Errors): a real lock held by another
 * session, never a mock. Whatever the answer, it must tell the truth: an error means nothing was stored,
 * a 2xx means all of it was, and no connection is handed on in an unknown state.
 */

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a stalled database', () => {
  let service: TestService;
  const lockSessions: pg.Client[] = [];

  beforeAll(async () => {
    service = await startTestService();
  });

  afterEach(async () => {
    for (const session of lockSessions.splice(0)) await session.end().catch(() => undefined);
  });

  afterAll(async () => {
    await service.close();
  });

  /** Another session on the service's database, holding whatever the statements take. */
  async function lockSession(...statements: string[]): Promise<pg.Client> {
    const session = new pg.Client({ connectionString: service.databaseUrl });
    await session.connect();
    lockSessions.push(session);
    for (const statement of statements) await session.query(statement);
    return session;
  }

  const create = (id: string) =>
    service.request<Tenant>(createPath, {
      method: 'POST',
      query: { id, label: `Tenant ${id}` },
    });

  function expectUnavailable(response: ApiResponse): void {
    expect({
      status: response.status,
      type: response.headers.get('content-type')?.split(';')[0],
      code: (response.body as { code?: string }).code,
      retryAfter: response.headers.get('retry-after'),
    }).toEqual({
      status: 503,
      type: 'application/problem+json',
      code: 'SERVICE_UNAVAILABLE',
      retryAfter: expect.stringMatching(/^\d+$/) as unknown,
    });
  }

  async function tenantsWithoutDid(): Promise<string[]> {
    const rows = await queryDatabase<{ id: string }>(
      service.databaseUrl,
      `SELECT tenant.id FROM tenant LEFT JOIN tenant_did ON tenant_did.tenant_id = tenant.id
        WHERE tenant_did.tenant_id IS NULL`,
    );
    return rows.map((row) => row.id);
  }

  async function storedIds(ids: string[]): Promise<string[]> {
    const rows = await queryDatabase<{ id: string }>(
      service.databaseUrl,
      'SELECT id FROM tenant WHERE id = ANY($1) ORDER BY id',
      [ids],
    );
    return rows.map((row) => row.id);
  }

  /** Enough requests to meet every pooled connection: none may be a 5xx other than a 503. */
  async function expectHealthyConnections(): Promise<void> {
    const statuses: number[] = [];
    for (let round = 0; round < 4; round++) {
      const answers = await Promise.all([
        ...Array.from({ length: 6 }, () => service.request(tenantsPath)),
        ...Array.from({ length: 4 }, (_, index) =>
          create(`healthy-${round}-${index}-${Date.now()}`),
        ),
      ]);
      statuses.push(...answers.map((answer) => answer.status));
    }
    expect(statuses.filter((status) => status >= 300)).toEqual([]);
  }

  /**
   * No connection of the service stays in a transaction once the requests are answered. The
   * service's own background work (the webhook dispatcher's claim every 250 ms) opens short ones, so
   * a connection left in a transaction is one still there after a few seconds of looking. Once none is
   * running, a statement the service gave up on has ended too: nothing it did can land later.
   */
  async function expectNoOpenTransactions(): Promise<void> {
    const deadline = Date.now() + 5_000;
    let rows: { state: string; query: string }[];
    do {
      rows = await queryDatabase<{ state: string; query: string }>(
        service.databaseUrl,
        `SELECT state, query FROM pg_stat_activity
          WHERE datname = current_database() AND application_name = 'agent-service'
            AND (state LIKE 'idle in transaction%' OR state = 'active')`,
      );
      if (rows.length > 0) await sleep(50);
    } while (rows.length > 0 && Date.now() < deadline);
    expect(rows).toEqual([]);
  }

  it('answers creates that wait on a table lock with 503 and stores none of them, not even later', async () => {
    const lock = await lockSession('BEGIN', 'LOCK TABLE tenant IN SHARE MODE');
    const stalled = ['stalled-create-1', 'stalled-create-2', 'stalled-create-3'];
    const answers = await Promise.all(stalled.map(create));
    for (const answer of answers) expectUnavailable(answer);
    await lock.query('COMMIT');

    const later = ['after-lock-1', 'after-lock-2', 'after-lock-3', 'after-lock-4'];
    const created = await Promise.all(later.map(create));
    expect(created.map((answer) => answer.status)).toEqual([201, 201, 201, 201]);
    await expectNoOpenTransactions();

    expect(await storedIds([...stalled, ...later])).toEqual(later);
    expect(await tenantsWithoutDid()).toEqual([]);
    for (const id of stalled) expect((await create(id)).status).toBe(201);
    await expectHealthyConnections();
    await expectNoOpenTransactions();
  }, 60_000);

  it('recovers when the lock holder inserts the very id being created: no 500s afterwards', async () => {
    const lock = await lockSession(
      'BEGIN',
      "INSERT INTO tenant (id, label) VALUES ('contended', 'Held by another session')",
    );
    expectUnavailable(await create('contended'));
    await lock.query('COMMIT');
    await expectNoOpenTransactions();
    await expectHealthyConnections();
    await expectNoOpenTransactions();
    // The lock holder's row (a tenant without a DID, made behind the service's back) is its own.
    await queryDatabase(service.databaseUrl, "DELETE FROM tenant WHERE id = 'contended'");
  }, 60_000);

  it('does not apply an update it answered 503, even after the lock is gone', async () => {
    expect((await create('stalled-update')).status).toBe(201);
    const lock = await lockSession(
      'BEGIN',
      "SELECT id FROM tenant WHERE id = 'stalled-update' FOR UPDATE",
    );
    const answer = await service.request(updatePath('stalled-update'), {
      method: 'POST',
      query: { label: 'Changed while locked' },
    });
    expectUnavailable(answer);
    await lock.query('COMMIT');
    await expectNoOpenTransactions();

    const tenant = await service.request<Tenant>(tenantPath('stalled-update'));
    expect(tenant.status).toBe(200);
    expect(tenant.body.label).toBe('Tenant stalled-update');
    await expectHealthyConnections();
    await expectNoOpenTransactions();
  }, 60_000);

  it('does not delete a tenant it answered 503 for: the tenant and its DID stay', async () => {
    const made = await create('stalled-delete');
    expect(made.status).toBe(201);
    const lock = await lockSession(
      'BEGIN',
      "SELECT tenant_id FROM tenant_did WHERE tenant_id = 'stalled-delete' FOR UPDATE",
    );
    expectUnavailable(await service.request(deletePath('stalled-delete'), { method: 'POST' }));
    await lock.query('COMMIT');
    await expectNoOpenTransactions();

    const tenant = await service.request<Tenant>(tenantPath('stalled-delete'));
    expect(tenant.status).toBe(200);
    expect(tenant.body.did).toBe(made.body.did);
    const did = await service.request<{ id: string }>('/ctrl/api/v1.0/did', {
      headers: { 'x-tenant-id': 'stalled-delete' },
    });
    expect(did.body.id).toBe(made.body.did);
    await expectHealthyConnections();
    await expectNoOpenTransactions();
  }, 60_000);
});
