import { type DataSource, type EntityManager } from 'typeorm';
import { type KeyVault } from './key-vault.js';
import {
  countByKeyId,
  labelOf,
  registeredSealedColumns,
  type KeyIdCount,
  type SealedColumn,
} from './sealed-columns.js';

export interface RewrapOptions {
  /** Rows per transaction. */
  batchSize?: number;
  /** Re-seal what can be re-sealed even though some rows name a master key this run does not have. */
  skipUnknown?: boolean;
  /** Progress and summary lines; never a key, a seed or a secret. */
  print?: (line: string) => void;
  /** Called after each committed batch. */
  afterBatch?: (column: string, resealed: number) => void | Promise<void>;
}

export interface RewrapResult {
  /** Boxes re-sealed, per column and per the key id they were under ('unrecorded' for null). */
  resealed: Record<string, Record<string, number>>;
  /** Boxes under key ids this run does not have, left as they are. */
  unknown: KeyIdCount[];
  /** Boxes still not under the current key that this run could have re-sealed (locked, unreadable). */
  left: number;
  /** Nothing is under a previous key any more: AGENT_PREVIOUS_MASTER_KEYS can be emptied. */
  done: boolean;
  /** Refused to start, because of `unknown`, without `skipUnknown`. */
  refused: boolean;
}

interface Row {
  id: string;
  owner: string;
  box: Buffer;
  key_id: string | null;
}

/**
 * Re-seals every box that is not under the current master key, in batches of one transaction each, so
 * that a run that stops anywhere loses nothing and the next run continues. Safe beside the running
 * service: a box and its key id change together in one row update, and both keys open while both are
 * configured. Rows locked by the service are skipped and picked up by a further pass.
 */
export async function rewrap(
  dataSource: DataSource,
  vault: KeyVault,
  options: RewrapOptions = {},
): Promise<RewrapResult> {
  const batchSize = options.batchSize ?? 500;
  const print = options.print ?? (() => undefined);
  const result: RewrapResult = { resealed: {}, unknown: [], left: 0, done: false, refused: false };
  result.unknown = (await countByKeyId((sql) => dataSource.query(sql))).filter(
    ({ keyId }) => keyId !== null && !vault.has(keyId),
  );
  for (const { column, keyId, count } of result.unknown) {
    print(`${labelOf(column)}: ${count} sealed under master key ${keyId}, which is not configured`);
  }
  if (result.unknown.length > 0 && options.skipUnknown !== true) {
    print(
      'Refusing to re-seal: add the missing keys to AGENT_PREVIOUS_MASTER_KEYS, or run again with --skip-unknown to re-seal the others and leave these as they are.',
    );
    result.refused = true;
    return result;
  }
  print(`Re-sealing under master key ${vault.masterKeyId}, ${batchSize} rows per transaction.`);
  for (const column of registeredSealedColumns()) {
    const counts = (result.resealed[labelOf(column)] = {} as Record<string, number>);
    // Another pass while the last one made progress: it may have skipped rows that were locked.
    for (let progress = true; progress;) {
      progress = false;
      let cursor: string | undefined;
      for (;;) {
        const batch = await dataSource.transaction((manager) =>
          resealBatch(manager, vault, column, cursor, batchSize),
        );
        if (batch.last === undefined) break;
        cursor = batch.last;
        let resealed = 0;
        for (const [keyId, count] of Object.entries(batch.resealed)) {
          counts[keyId] = (counts[keyId] ?? 0) + count;
          resealed += count;
        }
        for (const failed of batch.failed) {
          print(`${labelOf(column)}: could not open the box of ${failed}; left as it is`);
        }
        progress ||= resealed > 0;
        const total = Object.values(counts).reduce((sum, count) => sum + count, 0);
        print(`${labelOf(column)}: ${resealed} re-sealed (${total} in all)`);
        await options.afterBatch?.(labelOf(column), resealed);
      }
    }
  }
  const after = await countByKeyId((sql) => dataSource.query(sql));
  result.left = after
    .filter(({ keyId }) => keyId === null || (keyId !== vault.masterKeyId && vault.has(keyId)))
    .reduce((sum, { count }) => sum + count, 0);
  const stillUnknown = after.filter(({ keyId }) => keyId !== null && !vault.has(keyId));
  result.done = result.left === 0 && stillUnknown.length === 0;
  printSummary(result, stillUnknown, print);
  return result;
}

/** One transaction: the next rows after the cursor not under the current key, re-sealed in one update. */
async function resealBatch(
  manager: EntityManager,
  vault: KeyVault,
  column: SealedColumn,
  cursor: string | undefined,
  batchSize: number,
): Promise<{ last?: string; resealed: Record<string, number>; failed: string[] }> {
  const { table, id, idType, owner, box, keyId } = column;
  const rows = await manager.query<Row[]>(
    `SELECT ${id} AS id, ${owner} AS owner, ${box} AS box, ${keyId} AS key_id FROM ${table}
      WHERE ${box} IS NOT NULL AND (${keyId} IS NULL OR ${keyId} = ANY($1::varchar[]))
        ${cursor === undefined ? '' : `AND ${id} > $3::${idType}`}
      ORDER BY ${id} LIMIT $2 FOR UPDATE SKIP LOCKED`,
    cursor === undefined
      ? [vault.previousMasterKeyIds, batchSize]
      : [vault.previousMasterKeyIds, batchSize, cursor],
  );
  const ids: string[] = [];
  const boxes: Buffer[] = [];
  const resealed: Record<string, number> = {};
  const failed: string[] = [];
  for (const row of rows) {
    let secret: Buffer;
    try {
      // Null: sealed before key ids were recorded, under the key that is still current.
      secret = vault.open(row.owner, row.box, column.purpose, row.key_id ?? vault.masterKeyId);
    } catch {
      failed.push(row.id);
      continue;
    }
    try {
      boxes.push(vault.seal(row.owner, secret, column.purpose));
    } finally {
      secret.fill(0);
    }
    ids.push(row.id);
    const from = row.key_id ?? 'unrecorded';
    resealed[from] = (resealed[from] ?? 0) + 1;
  }
  if (ids.length > 0) {
    await manager.query(
      `UPDATE ${table} t SET ${box} = v.box, ${keyId} = $3
         FROM unnest($1::${idType}[], $2::bytea[]) AS v(id, box) WHERE t.${id} = v.id`,
      [ids, boxes, vault.masterKeyId],
    );
  }
  return { last: rows.at(-1)?.id, resealed, failed };
}

function printSummary(
  result: RewrapResult,
  stillUnknown: KeyIdCount[],
  print: (line: string) => void,
): void {
  print('Summary:');
  for (const [column, counts] of Object.entries(result.resealed)) {
    const parts = Object.entries(counts).map(([keyId, count]) => `${count} from ${keyId}`);
    print(`  ${column}: ${parts.length === 0 ? 'nothing to re-seal' : parts.join(', ')}`);
  }
  for (const { column, keyId, count } of stillUnknown) {
    print(
      `  ${labelOf(column)}: ${count} still under master key ${keyId}, which is not configured`,
    );
  }
  if (result.left > 0) {
    print(`  ${result.left} not re-sealed yet (locked or unreadable): run it again.`);
  }
  if (result.done) {
    print('No row is sealed under any previous key: AGENT_PREVIOUS_MASTER_KEYS can be emptied.');
  }
}
