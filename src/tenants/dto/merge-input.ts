import { DomainException } from '../../common/problem/domain.exception.js';

/**
 * Lissi Agent's interface passes tenant fields as query parameters; a JSON body is accepted too (docs/api.md).
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

/** The fields of a new tenant from query and body; id and label are required. */
export function newTenantFrom<T extends { id?: string; label?: string; imageUrl?: string | null }>(
  query: T,
  body: T | undefined,
): { id: string; label: string; imageUrl?: string | null } {
  const { id, label, imageUrl } = mergeQueryAndBody(query, body, ['id', 'label', 'imageUrl']);
  if (id === undefined || label === undefined) {
    const missing = [
      id === undefined ? 'id' : undefined,
      label === undefined ? 'label' : undefined,
    ].filter((field): field is string => field !== undefined);
    throw new DomainException(
      'VALIDATION_FAILED',
      `A new tenant needs ${missing.join(' and ')}.`,
      missing.map((field) => ({ field, message: 'is required' })),
    );
  }
  return { id, label, imageUrl };
}
