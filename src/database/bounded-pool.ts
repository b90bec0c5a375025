import pg from 'pg';
import { type DataSource } from 'typeorm';
import { BoundedClient } from './bounded-client.js';
import { asUnavailable } from './connection-errors.js';

type ConnectCallback = (
  error: Error | undefined,
  client: pg.PoolClient | undefined,
  done: (release?: unknown) => void,
) => void;

/**
 * The pool of the service's DataSources (TypeORM's `driver` option): clients are BoundedClients, and a
 * connection that cannot be had (refused, timed out, the pool ended) is a DependencyUnavailableError.
 */
export class BoundedPool extends pg.Pool {
  constructor(config: pg.PoolConfig = {}) {
    super({ ...config, Client: BoundedClient });
  }

  // pg's two forms, a promise or a callback: arguments and answer pass through unchanged.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override connect(callback?: ConnectCallback): any {
    if (callback === undefined) {
      return super.connect().catch((error: unknown) => {
        throw asUnavailable(error);
      });
    }
    super.connect((error, client, done) =>
      callback(error === undefined ? undefined : (asUnavailable(error) as Error), client, done),
    );
    return undefined;
  }
}

/** TypeORM's PostgreSQL driver keeps its pg pool as `master` (public in its typings, typed `any`). */
export function poolOf(dataSource: DataSource): pg.Pool {
  const pool = (dataSource.driver as { master?: unknown }).master;
  if (typeof pool !== 'object' || pool === null || typeof (pool as pg.Pool).query !== 'function') {
    throw new Error('DataSource is not initialized: it has no PostgreSQL pool');
  }
  return pool as pg.Pool;
}

/** What TypeORM needs of the pg module, with the bounded pool. */
export const boundedDriver = { Pool: BoundedPool, defaults: pg.defaults };
