import { type SealPurpose } from './key-vault.js';

/** A bytea column of sealed boxes and the column that records which master key sealed each. */
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

/** Everything the KeyVault sealed in the database: what rotation re-seals and boot checks. */
export const sealedColumns: readonly SealedColumn[] = [
  {
    table: 'tenant_did',
    id: 'did',
    idType: 'varchar',
    owner: 'tenant_id',
    box: 'private_key_sealed',
    keyId: 'master_key_id',
    purpose: 'did-private-key',
  },
  {
    table: 'webhook_subscription',
    id: 'id',
    idType: 'uuid',
    owner: 'id',
    box: 'secret_sealed',
    keyId: 'secret_master_key_id',
    purpose: 'webhook-secret',
  },
  {
    table: 'webhook_subscription',
    id: 'id',
    idType: 'uuid',
    owner: 'id',
    box: 'previous_secret_sealed',
    keyId: 'previous_secret_master_key_id',
    purpose: 'webhook-secret',
  },
  {
    table: 'idempotency_key',
    id: 'id',
    idType: 'varchar',
    owner: 'id',
    box: 'answer_sealed',
    keyId: 'answer_master_key_id',
    purpose: 'idempotent-answer',
  },
];

export function labelOf(column: SealedColumn): string {
  return `${column.table}.${column.box}`;
}

export interface KeyIdCount {
  column: SealedColumn;
  keyId: string | null;
  count: number;
}

/** How many boxes of each column each master key id sealed (names from the list above, never input). */
export async function countByKeyId(
  query: <Row>(sql: string) => Promise<Row[]>,
): Promise<KeyIdCount[]> {
  const counts: KeyIdCount[] = [];
  for (const column of sealedColumns) {
    const rows = await query<{ key_id: string | null; count: string }>(
      `SELECT ${column.keyId} AS key_id, count(*) AS count FROM ${column.table}
        WHERE ${column.box} IS NOT NULL GROUP BY ${column.keyId}`,
    );
    for (const row of rows) counts.push({ column, keyId: row.key_id, count: Number(row.count) });
  }
  return counts;
}
