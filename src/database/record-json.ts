/**
 * A new row's columns as the JSON that PostgreSQL's `jsonb_populate_record` reads back into the
 * table's types, for a statement that takes the row as one `jsonb` parameter: bytea as `\x` hex text,
 * timestamps as ISO text, other values (text, numbers, booleans, jsonb values) as they are.
 */
export function recordJson(columns: Record<string, unknown>): string {
  const typed = Object.entries(columns).map(([column, value]) => [
    column,
    Buffer.isBuffer(value)
      ? `\\x${value.toString('hex')}`
      : value instanceof Date
        ? value.toISOString()
        : value,
  ]);
  return JSON.stringify(Object.fromEntries(typed));
}
