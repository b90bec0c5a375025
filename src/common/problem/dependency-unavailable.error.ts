/**
 * A service this one depends on (the database) did not answer, or not in time: the request was not
 * wrong, and the same request may succeed shortly. Answered 503 with Retry-After.
 */
export class DependencyUnavailableError extends Error {
  override name = 'DependencyUnavailableError';
}

/** The error, or the driver error an ORM wrapped it in (TypeORM's `driverError`), is one of those. */
export function isDependencyUnavailable(error: unknown): boolean {
  if (error instanceof DependencyUnavailableError) return true;
  if (typeof error !== 'object' || error === null || !('driverError' in error)) return false;
  return error.driverError instanceof DependencyUnavailableError;
}
