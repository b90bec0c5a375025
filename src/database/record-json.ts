import { type EntityMetadata } from 'typeorm';

/**
 * A new row's properties as the JSON that PostgreSQL's `jsonb_populate_record` reads back into the
 * table's types, keyed by column name from TypeORM's metadata, for a statement that takes the row as
 * one `jsonb` parameter: bytea as `\x` hex text, timestamps as ISO text, other values (text, numbers,
 * booleans, jsonb values) as they are.
 */
export function recordJson(
  metadata: Pick<EntityMetadata, 'name' | 'findColumnWithPropertyName'>,
  row: object,
): string {
  const typed = Object.entries(row).map(([property, value]: [string, unknown]) => {
    const column = metadata.findColumnWithPropertyName(property);
    if (column === undefined) throw new Error(`${metadata.name} has no column ${property}`);
    return [
      column.databaseName,
      Buffer.isBuffer(value)
        ? `\\x${value.toString('hex')}`
        : value instanceof Date
          ? value.toISOString()
          : value,
    ];
  });
  return JSON.stringify(Object.fromEntries(typed));
}
