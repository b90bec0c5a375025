import pg from 'pg';
import { DependencyUnavailableError } from '../common/problem/dependency-unavailable.error.js';

/** SQLSTATEs that say the database cannot serve now, not that the statement is wrong. */
const unavailableStates = new Set([
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '53300', // too_many_connections
  '57014', // query_canceled: the server's statement_timeout
  '55P03', // lock_not_available: the server's lock_timeout
  '40P01', // deadlock_detected
  '40001', // serialization_failure
]);

/** True for an error that PostgreSQL itself reported: the connection is still in step with the server. */
export function isServerError(error: unknown): error is pg.DatabaseError {
  return error instanceof pg.DatabaseError;
}

/**
 * The error as the service should see it: anything the client or the pool raised itself (a timeout, a
 * refused or broken connection, a pool that has ended) and the server's "cannot serve now" states
 * become a DependencyUnavailableError (503); every other server error passes unchanged.
 */
export function asUnavailable(error: unknown): unknown {
  if (error instanceof DependencyUnavailableError) return error;
  if (isServerError(error) && !unavailableStates.has(error.code ?? '')) return error;
  const reason = error instanceof Error ? error.message : String(error);
  return new DependencyUnavailableError(`The database is unavailable: ${reason}`, { cause: error });
}
