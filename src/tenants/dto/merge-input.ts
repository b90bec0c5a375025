import { DomainException } from '../../common/problem/domain.exception.js';

/**
 * The seed passes tenant fields as query parameters; a JSON body is accepted too (api.md, Routes).
 * A field given both ways must agree, otherwise nobody can tell which one the caller meant.
 */
export function mergeQueryAndBody<T extends object>(
  query: T,
  body: T | undefined,
  fields: readonly (keyof T & string)[],
): T {
  const merged: Partial<T> = {};
  const conflicts: { field: string; message: string }[] = [];
  for (const field of fields) {
    const fromQuery = query[field];
    const fromBody = body?.[field];
    if (fromQuery !== undefined && fromBody !== undefined && !sameValue(fromQuery, fromBody)) {
      conflicts.push({ field, message: 'differs between the query and the body' });
    }
    merged[field] = fromQuery !== undefined ? fromQuery : fromBody;
  }
  if (conflicts.length > 0) {
    throw new DomainException(
      'QUERY_BODY_MISMATCH',
      `Give each field once, or the same value in the query and the body: ${conflicts.map((conflict) => conflict.field).join(', ')}.`,
      conflicts,
    );
  }
  return merged as T;
}

/** An empty query value and a JSON null both mean "no image". */
function sameValue(left: unknown, right: unknown): boolean {
  const normalise = (value: unknown) => (value === '' ? null : value);
  return normalise(left) === normalise(right);
}
