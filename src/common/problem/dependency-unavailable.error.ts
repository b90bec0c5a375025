import { QueryRunnerAlreadyReleasedError, QueryRunnerProviderAlreadyReleasedError } from 'typeorm';

/**
 * A service this one depends on (the database) did not answer, or not in time: the request was not
 * wrong, and the same request may succeed shortly. Answered 503 with Retry-After.
 */
export class DependencyUnavailableError extends Error {
  override name = 'DependencyUnavailableError';
}

/**
 * The error, or the driver error an ORM wrapped it in (TypeORM's `driverError`), is one of those. So is
 * TypeORM's released query runner: TypeORM releases a transaction's runner when its connection reports
 * an error (the server went away between two statements), and every later statement, COMMIT included,
 * fails with one of its two "already released" errors; nothing of that transaction was committed.
 */
export function isDependencyUnavailable(error: unknown): boolean {
  if (error instanceof DependencyUnavailableError) return true;
  if (isReleasedRunner(error)) return true;
  if (typeof error !== 'object' || error === null || !('driverError' in error)) return false;
  return error.driverError instanceof DependencyUnavailableError;
}

/**
 * TypeORM's "already released" errors: a connection lost mid-transaction, or a manager used after its
 * transaction ended (a bug), which only the stack tells apart; the problem filter logs it.
 */
export function isReleasedRunner(error: unknown): boolean {
  return (
    error instanceof QueryRunnerAlreadyReleasedError ||
    error instanceof QueryRunnerProviderAlreadyReleasedError
  );
}
