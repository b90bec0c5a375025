import pg from 'pg';
import { QueryFailedError } from 'typeorm';

/** The integrity constraints whose violation a service turns into a 404 or 409 of its own. */
const kinds = {
  '23505': 'unique',
  '23503': 'foreign-key',
} as const;

export type ConstraintKind = (typeof kinds)[keyof typeof kinds];

/**
 * Whether PostgreSQL refused a statement for violating a constraint of this kind (and, when given, of
 * this name), whether the error came straight from pg or wrapped by TypeORM. The one place that reads
 * SQLSTATE codes and constraint names.
 */
export function violates(error: unknown, kind: ConstraintKind, constraint?: string): boolean {
  const source = error instanceof QueryFailedError ? (error.driverError as unknown) : error;
  if (!(source instanceof pg.DatabaseError) || source.code === undefined) return false;
  return (
    kinds[source.code as keyof typeof kinds] === kind &&
    (constraint === undefined || source.constraint === constraint)
  );
}
