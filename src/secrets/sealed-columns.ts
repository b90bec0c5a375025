import { type SealPurpose } from './key-vault.js';

/**
 * A bytea column of sealed boxes and the column that records which master key sealed each: what a feature
 * that seals declares (`SecretsModule.forFeature`). Names are SQL identifiers written in code, never input.
 */
export interface SealedColumn {
  table: string;
  /** The primary key, and its SQL type (for the batch update's array). */
  id: string;
  idType: 'varchar' | 'uuid';
  /** The column whose value was bound to the box as its owner (associated data). */
  owner: string;
  box: string;
  /** Null in a row: sealed before key ids were recorded, so under the one key of that time. */
  keyId: string;
  purpose: SealPurpose;
}

/** Every registered column, by label: a feature module loaded twice registers its columns once. */
const registered = new Map<string, SealedColumn>();

/**
 * Adds a feature's sealed columns to what rotation re-seals and the boot check counts. Called by
 * `SecretsModule.forFeature` when the feature's module file is loaded, so that whoever loads the module
 * tree (the service, the rewrap command) sees every column without starting anything.
 */
export function registerSealedColumns(columns: readonly SealedColumn[]): void {
  for (const column of columns) {
    const label = labelOf(column);
    const known = registered.get(label);
    if (known !== undefined && JSON.stringify(known) !== JSON.stringify(column)) {
      throw new Error(`${label} is registered twice, differently`);
    }
    registered.set(label, column);
  }
}

/** Everything the KeyVault sealed in the database, in the order the module tree registered it. */
export function registeredSealedColumns(): readonly SealedColumn[] {
  return [...registered.values()];
}

export function labelOf(column: SealedColumn): string {
  return `${column.table}.${column.box}`;
}

export interface KeyIdCount {
  column: SealedColumn;
  keyId: string | null;
  count: number;
}

/** How many boxes of each registered column each master key id sealed. */
export async function countByKeyId(
  query: <Row>(sql: string) => Promise<Row[]>,
): Promise<KeyIdCount[]> {
  const counts: KeyIdCount[] = [];
  for (const column of registeredSealedColumns()) {
    const rows = await query<{ key_id: string | null; count: string }>(
      `SELECT ${column.keyId} AS key_id, count(*) AS count FROM ${column.table}
        WHERE ${column.box} IS NOT NULL GROUP BY ${column.keyId}`,
    );
    for (const row of rows) counts.push({ column, keyId: row.key_id, count: Number(row.count) });
  }
  return counts;
}
