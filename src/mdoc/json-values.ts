import { DateOnly } from '@owf/mdoc';

/** Nesting a presented value may have before it is cut (the response's size bounds it anyway). */
const maxDepth = 8;

/**
 * An element's CBOR value as JSON: full-date as `YYYY-MM-DD`, tdate as an ISO string, byte strings as
 * base64url, maps as objects (keys as strings), big integers as numbers when exact, else strings.
 */
export function jsonOf(value: unknown, depth = 0): unknown {
  if (depth > maxDepth) return null;
  if (value instanceof DateOnly) return value.toISOString();
  if (value instanceof Date) return isNaN(value.getTime()) ? null : value.toISOString();
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64url');
  if (typeof value === 'bigint') {
    return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  }
  if (Array.isArray(value)) return value.map((item) => jsonOf(item, depth + 1));
  if (value instanceof Map) {
    return Object.fromEntries(
      [...value.entries()].map(([key, member]) => [String(key), jsonOf(member, depth + 1)]),
    );
  }
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, member]) => [key, jsonOf(member, depth + 1)]),
    );
  }
  return null;
}
