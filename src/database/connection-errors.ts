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
 * PostgreSQL's refusal of a prepared statement whose result columns changed type since it was prepared
 * (a migration of another instance, say): SQLSTATE 0A000 from the routine that revalidates cached plans
 * (its name, unlike the message, is never translated). Also when it is the cause of an outage error.
 */
export function isStalePlan(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, routine, cause } = error as { code?: unknown; routine?: unknown; cause?: unknown };
  if (code === '0A000' && routine === 'RevalidateCachedQuery') return true;
  return cause !== undefined && cause !== error && isStalePlan(cause);
}

/**
 * The error as the service should see it: anything the client or the pool raised itself (a timeout, a
 * refused or broken connection, a pool that has ended), the server's "cannot serve now" states and a
 * stale plan become a DependencyUnavailableError (503); every other server error passes unchanged.
 */
export function asUnavailable(error: unknown): unknown {
  if (error instanceof DependencyUnavailableError) return error;
  // A stale plan: the connection is dropped, and the same request succeeds on another one.
  if (isServerError(error) && !unavailableStates.has(error.code ?? '') && !isStalePlan(error))
    return error;
  const reason = error instanceof Error ? error.message : String(error);
  return new DependencyUnavailableError(`The database is unavailable: ${reason}`, { cause: error });
}
