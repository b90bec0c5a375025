import pg from 'pg';
import { BoundedClient } from '../src/database/bounded-client.js';
import { createTestDatabase, queryDatabase } from './support/database.js';

/**
 * The pool's client when the client gives up before the server does (a database that does not answer):
 * the connection is dropped, never handed on with a statement still running or a transaction open.
 */
describe(BoundedClient.name, () => {
  let databaseUrl: string;
  const pools: pg.Pool[] = [];

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    await queryDatabase(databaseUrl, 'CREATE TABLE note (text varchar PRIMARY KEY)');
  });

  afterAll(async () => {
    for (const pool of pools) await pool.end();
  });

  /** One connection only, so that the next query gets the same one if it was kept. */
  function poolOf(Client: typeof pg.Client, applicationName: string, queryTimeout = 300): pg.Pool {
    const pool = new pg.Pool({
      connectionString: databaseUrl,
      Client,
      max: 1,
      query_timeout: queryTimeout,
      application_name: applicationName,
    });
    pool.on('error', () => undefined);
    pools.push(pool);
    return pool;
  }

  async function backendsOf(applicationName: string): Promise<{ pid: number; state: string }[]> {
    return queryDatabase(
      databaseUrl,
      'SELECT pid, state FROM pg_stat_activity WHERE application_name = $1',
      [applicationName],
    );
  }

  /** Polls the server's view of a pool's backends until `done` holds (statements outlive clients). */
  async function backendsOnceThey(
    applicationName: string,
    done: (backends: { pid: number; state: string }[]) => boolean,
  ): Promise<{ pid: number; state: string }[]> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const backends = await backendsOf(applicationName);
      if (done(backends) || Date.now() > deadline) return backends;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async function transactionThatTimesOut(pool: pg.Pool, text: string): Promise<unknown> {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('INSERT INTO note (text) VALUES ($1)', [text]);
      await client.query('SELECT pg_sleep(1)');
      await client.query('COMMIT');
      return undefined;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      return error;
    } finally {
      client.release();
    }
  }

  /** The backend of each query, on a client checked out and released without an error. */
  async function backendOf(pool: pg.Pool, text = 'SELECT 1'): Promise<number | Error> {
    const client = await pool.connect();
    try {
      await client.query(text);
      return (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0].pid;
    } catch (error) {
      return error as Error;
    } finally {
      client.release();
    }
  }

  it('drops the connection after a read timeout, so the next query gets a new one', async () => {
    const pool = poolOf(BoundedClient, 'bounded-read-timeout');
    const first = await backendOf(pool);
    expect(await backendOf(pool, 'SELECT pg_sleep(1)')).toBeInstanceOf(Error);
    const next = await backendOf(pool);
    expect(typeof next).toBe('number');
    expect(next).not.toBe(first);
    // Once its statement is over, the server notices the closed socket and ends the old backend.
    const backends = await backendsOnceThey('bounded-read-timeout', (all) => all.length === 1);
    expect(backends.map((backend) => backend.pid)).toEqual([next]);
  });

  it('never commits the work of a transaction whose statement outlived the client', async () => {
    const error = await transactionThatTimesOut(
      poolOf(BoundedClient, 'bounded-transaction'),
      'bounded',
    );
    expect(error).toBeInstanceOf(Error);
    // A backend that is gone has rolled its transaction back.
    expect(await backendsOnceThey('bounded-transaction', (all) => all.length === 0)).toEqual([]);
    const stored = await queryDatabase(databaseUrl, "SELECT text FROM note WHERE text = 'bounded'");
    expect(stored).toEqual([]);
  });

  it('keeps the connection after an error the server reported', async () => {
    // No statement here is meant to time out: a busy machine must not make one.
    const pool = poolOf(BoundedClient, 'bounded-server-error', 10_000);
    const first = await backendOf(pool);
    expect(await backendOf(pool, 'SELECT * FROM no_such_table')).toBeInstanceOf(pg.DatabaseError);
    expect(await backendOf(pool)).toBe(first);
  });

  it("is needed: pg's own client hands the connection on with the transaction still open", async () => {
    const pool = poolOf(pg.Client, 'plain-transaction');
    expect(await transactionThatTimesOut(pool, 'plain')).toBeInstanceOf(Error);
    // The server finishes the statement the client gave up on, and the transaction stays open.
    await backendsOnceThey('plain-transaction', (all) =>
      all.some((backend) => backend.state === 'idle in transaction'),
    );
    // The next user of the connection finds itself inside the abandoned transaction and commits it.
    await pool.query('COMMIT');
    const stored = await queryDatabase(databaseUrl, "SELECT text FROM note WHERE text = 'plain'");
    expect(stored).toEqual([{ text: 'plain' }]);
  });

  it('keeps the process when the server ends a checked-out connection between queries', async () => {
    const pool = poolOf(BoundedClient, 'bounded-lost-between-queries');
    const client = await pool.connect();
    await client.query('BEGIN');
    const [{ pid }] = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows;
    // Nobody but the client itself listens now (pg-pool removes its listener while a client is out).
    await queryDatabase(databaseUrl, 'SELECT pg_terminate_backend($1)', [pid]);
    await backendsOnceThey('bounded-lost-between-queries', (backends) => backends.length === 0);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await expect(client.query('SELECT 1')).rejects.toThrow();
    client.release(true);
    // The pool makes a new connection for the next query.
    expect((await pool.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });
});
