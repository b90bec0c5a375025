import {
  isDependencyUnavailable,
  isReleasedRunner,
} from '../src/common/problem/dependency-unavailable.error.js';
import { queryDatabase, useTestDataSource } from './support/database.js';

/**
 * The server ends a transaction's connection between two of its statements (a restart, an operator's
 * pg_terminate_backend): pg reports it as the connection's 'error' event, TypeORM releases the query
 * runner, and the transaction's next statement fails. That is the database's outage (503), not a bug.
 */
describe('a connection lost between two statements of a transaction', () => {
  const db = useTestDataSource();

  it('fails the transaction as the database being unavailable, and commits nothing', async () => {
    const failure = await db.dataSource
      .transaction(async (manager) => {
        await manager.query('INSERT INTO tenant (id, label) VALUES ($1, $2)', ['cut', 'Cut']);
        const [backend] = await manager.query<{ pid: number }[]>('SELECT pg_backend_pid() AS pid');
        await queryDatabase(db.url, 'SELECT pg_terminate_backend($1)', [backend?.pid]);
        const deadline = Date.now() + 10_000;
        while (manager.queryRunner?.isReleased !== true && Date.now() < deadline)
          await new Promise((resolve) => setTimeout(resolve, 10));
        await manager.query('SELECT label FROM tenant WHERE id = $1', ['cut']);
      })
      .then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
    expect(isReleasedRunner(failure)).toBe(true);
    expect(isDependencyUnavailable(failure)).toBe(true);
    expect(await queryDatabase(db.url, "SELECT id FROM tenant WHERE id = 'cut'")).toEqual([]);
    // The pool dropped that connection: the next transaction runs.
    const [answer] = await db.dataSource.query<{ one: number }[]>('SELECT 1 AS one');
    expect(answer).toEqual({ one: 1 });
  });
});
