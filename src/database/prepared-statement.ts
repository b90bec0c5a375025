import { type Pool, type QueryConfig, type QueryResultRow } from 'pg';
import { type DataSource } from 'typeorm';

/** TypeORM's PostgreSQL driver keeps its pg pool as `master` (public in its typings, typed `any`). */
function poolOf(dataSource: DataSource): Pool {
  const pool = (dataSource.driver as { master?: unknown }).master;
  if (typeof pool !== 'object' || pool === null || typeof (pool as Pool).query !== 'function') {
    throw new Error('DataSource is not initialized: it has no PostgreSQL pool');
  }
  return pool as Pool;
}

/**
 * A query for a hot path, sent as a named prepared statement on the DataSource's own pool (so with its
 * bounds: pool size, connect and query timeouts). PostgreSQL parses it once per connection and, after a
 * few runs, keeps its plan, instead of parsing and planning it on every request: GET /did's read cost
 * the database a third less CPU that way (issue 6, README Performance).
 *
 * Only for statements whose result columns keep their types across migrations: PostgreSQL re-plans a
 * prepared statement after DDL, but refuses one whose result type changed ("cached plan must not change
 * result type") until the connection is new.
 */
export class PreparedStatement<Row extends QueryResultRow> {
  /**
   * pg copies a query's own properties, descriptor by descriptor, before it runs it (1.2 µs, and the copy
   * is an object V8 reads slowly); the name and text are inherited from this instead, so each query has
   * nothing of its own to copy (0.15 µs).
   */
  private readonly statement: Readonly<{ name: string; text: string }>;

  constructor(
    private readonly dataSource: DataSource,
    name: string,
    text: string,
  ) {
    this.statement = Object.freeze({ name, text });
  }

  async rows(values: unknown[]): Promise<Row[]> {
    const query = Object.create(this.statement) as QueryConfig;
    const result = await poolOf(this.dataSource).query<Row>(query, values);
    return result.rows;
  }
}
