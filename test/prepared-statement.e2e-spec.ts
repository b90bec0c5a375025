import { type DataSource } from 'typeorm';
import { DependencyUnavailableError } from '../src/common/problem/dependency-unavailable.error.js';
import { preparedPerConnection } from '../src/database/bounded-client.js';
import { isStalePlan } from '../src/database/connection-errors.js';
import { poolOf } from '../src/database/bounded-pool.js';
import { retriedOnStalePlan } from '../src/database/stale-plan-retry.js';
import { queryDatabase, useTestDataSource } from './support/database.js';

/** The bounded client (src/database/bounded-client.ts) sends every statement with parameters prepared. */
describe('statements with parameters', () => {
  const db = useTestDataSource();

  beforeAll(async () => {
    await queryDatabase(db.url, "INSERT INTO tenant (id, label) VALUES ('named', 'Named')");
  });

  const preparedOnConnection = (manager: { query: DataSource['query'] }) =>
    manager.query<{ statement: string }[]>('SELECT statement FROM pg_prepared_statements');

  it('are prepared on their connection once, and those without parameters are not', async () => {
    const statements = await db.dataSource.transaction(async (manager) => {
      for (let round = 0; round < 3; round++) {
        expect(await manager.query('SELECT label FROM tenant WHERE id = $1', ['named'])).toEqual([
          { label: 'Named' },
        ]);
      }
      await manager.query("SELECT label FROM tenant WHERE id = 'named'");
      return preparedOnConnection(manager);
    });
    const texts = statements.map((row) => row.statement);
    expect(texts.filter((text) => text === 'SELECT label FROM tenant WHERE id = $1')).toHaveLength(
      1,
    );
    expect(texts).not.toContain("SELECT label FROM tenant WHERE id = 'named'");
  });

  it('keep one generic plan once their first five calls showed it costs no more', async () => {
    const [statement] = await db.dataSource.transaction(async (manager) => {
      for (let call = 0; call < 8; call++) {
        await manager.query('SELECT label AS planned FROM tenant WHERE id = $1', [`n${call % 2}`]);
      }
      return manager.query<{ generic: number; custom: number }[]>(
        `SELECT generic_plans::int AS generic, custom_plans::int AS custom
           FROM pg_prepared_statements
          WHERE statement = 'SELECT label AS planned FROM tenant WHERE id = $1'`,
      );
    });
    // PostgreSQL's plan_cache_mode auto: custom plans for the first five calls, then the generic one.
    expect(statement).toEqual({ generic: 3, custom: 5 });
  });

  it.each([
    ['a search pattern', 'SELECT id FROM tenant WHERE label ILIKE $1', '%n%'],
    ['an optional filter', 'SELECT id FROM tenant WHERE ($1::text IS NULL OR id = $1)', null],
  ])('except %s, planned for the values of each call: never prepared', async (_, text, value) => {
    const plan = await db.dataSource.transaction(async (manager) => {
      for (let call = 0; call < 8; call++) await manager.query(text, [value]);
      expect((await preparedOnConnection(manager)).map((row) => row.statement)).not.toContain(text);
      const lines = await manager.query<{ 'QUERY PLAN': string }[]>(`EXPLAIN ${text}`, [value]);
      return lines.map((line) => line['QUERY PLAN']).join('\n');
    });
    // A plan for the value: the pattern in it, or the optional filter folded away.
    expect(plan).not.toContain('$1');
  });

  it(`keeps at most ${preparedPerConnection} on a connection and answers the rest unprepared`, async () => {
    const count = await db.dataSource.transaction(async (manager) => {
      for (let index = 0; index < preparedPerConnection + 20; index++) {
        const rows = await manager.query<{ n: number }[]>(`SELECT $1::int + ${index} AS n`, [1]);
        expect(rows).toEqual([{ n: 1 + index }]);
      }
      return (await preparedOnConnection(manager)).length;
    });
    expect(count).toBeLessThanOrEqual(preparedPerConnection);
    expect(count).toBeGreaterThan(preparedPerConnection - 20);
  });

  it('meet a column that changed type as an outage (503): the connection goes, the next one prepares anew', async () => {
    const read = () =>
      db.dataSource.transaction((manager) =>
        manager.query<{ label: string }[]>('SELECT label FROM tenant WHERE id = $1', ['named']),
      );
    // Every pooled connection prepares it.
    await Promise.all(Array.from({ length: 20 }, read));
    const before = poolOf(db.dataSource).totalCount;
    await queryDatabase(db.url, 'ALTER TABLE tenant ALTER COLUMN label TYPE text');
    try {
      const outcomes = await Promise.allSettled(Array.from({ length: 20 }, read));
      const refused = outcomes.filter((outcome) => outcome.status === 'rejected');
      expect(refused.length).toBeGreaterThan(0);
      for (const outcome of refused) {
        const { reason } = outcome;
        const driverError = (reason as { driverError?: unknown }).driverError ?? reason;
        expect(driverError).toBeInstanceOf(DependencyUnavailableError);
        expect(isStalePlan(driverError)).toBe(true);
      }
      // Each stale connection failed once and was dropped: as many reads again all succeed.
      const again = await Promise.all(Array.from({ length: before + 1 }, read));
      expect(again.every((rows) => rows[0]?.label === 'Named')).toBe(true);
    } finally {
      await queryDatabase(db.url, 'ALTER TABLE tenant ALTER COLUMN label TYPE varchar(200)');
    }
  });
});

describe(retriedOnStalePlan.name, () => {
  const db = useTestDataSource();

  beforeAll(async () => {
    await queryDatabase(db.url, "INSERT INTO tenant (id, label) VALUES ('retried', 'Retried')");
  });

  const read = () =>
    db.dataSource.query<{ label: string }[]>('SELECT label FROM tenant WHERE id = $1', ['retried']);

  it('throws any error but a stale plan at once', async () => {
    let calls = 0;
    const error = await retriedOnStalePlan(db.dataSource, 'broken', () => {
      calls++;
      return db.dataSource.query('SELECT no_such_column FROM tenant WHERE id = $1', ['retried']);
    }).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect((error as { driverError?: unknown }).driverError).toMatchObject({ code: '42703' });
    expect(calls).toBe(1);
  });

  it('answers on another connection when a column it reads changed type', async () => {
    // Every pooled connection prepares it.
    await Promise.all(Array.from({ length: 20 }, read));
    await queryDatabase(db.url, 'ALTER TABLE tenant ALTER COLUMN label TYPE text');
    try {
      const answers = await Promise.all(
        Array.from({ length: 20 }, () => retriedOnStalePlan(db.dataSource, 'label', read)),
      );
      expect(answers.every((rows) => rows[0]?.label === 'Retried')).toBe(true);
    } finally {
      await queryDatabase(db.url, 'ALTER TABLE tenant ALTER COLUMN label TYPE varchar(200)');
    }
  });
});
