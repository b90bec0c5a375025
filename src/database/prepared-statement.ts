import { Logger } from '@nestjs/common';
import { type Pool, type QueryResultRow } from 'pg';
import { type DataSource } from 'typeorm';
import { isStalePlan } from './connection-errors.js';

const logger = new Logger('PreparedStatement');

/** TypeORM's PostgreSQL driver keeps its pg pool as `master` (public in its typings, typed `any`). */
export function poolOf(dataSource: DataSource): Pool {
  const pool = (dataSource.driver as { master?: unknown }).master;
  if (typeof pool !== 'object' || pool === null || typeof (pool as Pool).query !== 'function') {
    throw new Error('DataSource is not initialized: it has no PostgreSQL pool');
  }
  return pool as Pool;
}

/**
 * A query for a hot path, sent as a named prepared statement on the DataSource's own pool (so with its
 * bounds: pool size, connect and query timeouts) under its own name: PostgreSQL parses it once per
 * connection (and plans each call for its values, bounded-pool.ts).
 *
 * PostgreSQL re-plans a prepared statement after a schema change, but refuses one whose result columns
 * changed type ("cached plan must not change result type") on every connection that prepared it before,
 * as when another instance's migration changes a column while this one runs. pg-pool closes a connection
 * whose query failed, so such a query is tried again until a connection prepares the statement anew.
 * That holds for direct connections and poolers in session mode (docs/operations.md).
 */
export class PreparedStatement<Row extends QueryResultRow> {
  constructor(
    private readonly dataSource: DataSource,
    private readonly name: string,
    private readonly text: string,
  ) {}

  async rows(values: unknown[]): Promise<Row[]> {
    const pool = poolOf(this.dataSource);
    // Each stale connection fails once and leaves the pool, so one more try than the pool holds
    // connections reaches a new one, unless the schema changes again meanwhile.
    for (let attempt = 0; ; attempt++) {
      try {
        return (await pool.query<Row>({ name: this.name, text: this.text, values })).rows;
      } catch (error) {
        if (!isStalePlan(error) || attempt >= (pool.options.max ?? 10)) throw error;
        logger.warn(
          `Statement ${this.name}: the schema changed under its plan; trying again on another connection`,
        );
      }
    }
  }
}
