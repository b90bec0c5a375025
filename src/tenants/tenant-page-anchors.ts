import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { type SortField } from './dto/list-tenants.query.js';

/** Rows between two anchors: a deep page walks fewer than this many index entries. */
export const anchorSpacing = 1000;
/** How long anchors serve before they are read again: how stale another instance's change leaves them. */
const anchorTtlMs = 1000;
/** Anchors one read may add: a page beyond them walks from the last one. */
const maxNewAnchors = 200;

/** The sort key of a row, exactly (timestamps to the microsecond, as text), and its id. */
export interface AnchorKey {
  value: string;
  id: string;
}

/** A sort column as SQL, its key as text, and a parameter cast back to the column's type. */
const columns: Record<SortField, { sql: string; text: string; cast: (p: string) => string }> = {
  id: { sql: 'tenant.id', text: 'tenant.id', cast: (p) => p },
  label: { sql: 'tenant.label', text: 'tenant.label', cast: (p) => p },
  createdAt: {
    sql: 'tenant.created_at',
    text: `to_char(tenant.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`,
    cast: (p) => `CAST(${p} AS timestamptz)`,
  },
  updatedAt: {
    sql: 'tenant.updated_at',
    text: `to_char(tenant.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`,
    cast: (p) => `CAST(${p} AS timestamptz)`,
  },
};

/** Rows after `key` in the order (field, id) ascending or descending, as SQL over two parameters. */
export function afterAnchorSql(field: SortField, descending: boolean, value: string, id: string) {
  const column = columns[field];
  const op = descending ? '<' : '>';
  // By id alone: the primary key, not a row comparison it holds no index for.
  if (field === 'id') return `tenant.id ${op} ${id}`;
  return `(${column.sql}, tenant.id) ${op} (${column.cast(value)}, ${id})`;
}

interface Anchors {
  readAt: number;
  /** keys[k] is the key of row (k + 1) × anchorSpacing − 1 of the unfiltered list. */
  keys: AnchorKey[];
}

/**
 * The sort keys of every `anchorSpacing`-th tenant of the unfiltered list, per sort order, so that a
 * deep page by number seeks from the anchor before it in the sort index and walks fewer than
 * `anchorSpacing` rows, instead of walking all rows before it (docs/performance.md, Deep pages).
 * Anchors are read again after `anchorTtlMs` and dropped at once when this instance changes a tenant.
 */
@Injectable()
export class TenantPageAnchors {
  private readonly orders = new Map<string, Anchors>();
  /** Reads under way, per order: concurrent deep pages wait for one walk rather than each walking. */
  private readonly reading = new Map<string, Promise<Anchors>>();
  /** Grows with each change: anchors read before one are not kept. */
  private generation = 0;

  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** After this instance changed a tenant: positions may have moved. */
  invalidate(): void {
    this.generation++;
    this.orders.clear();
  }

  /**
   * The anchor to seek from for the row at `offset`, and how many rows after it to skip; undefined for
   * the first `anchorSpacing` rows, or past the end of the list.
   */
  async seek(
    field: SortField,
    descending: boolean,
    offset: number,
  ): Promise<{ after: AnchorKey; skip: number } | undefined> {
    const block = Math.floor(offset / anchorSpacing);
    if (block === 0) return undefined;
    const order = `${field},${descending ? 'desc' : 'asc'}`;
    let anchors = this.orders.get(order);
    if (anchors === undefined || Date.now() - anchors.readAt > anchorTtlMs) {
      anchors = { readAt: Date.now(), keys: [] };
    }
    if (anchors.keys.length < block) {
      let read = this.reading.get(order);
      if (read === undefined) {
        read = this.extend(field, descending, order, anchors, block).finally(() =>
          this.reading.delete(order),
        );
        this.reading.set(order, read);
      }
      anchors = await read;
    }
    // The list ends before this block: a plain offset finds nothing, and says so as cheaply.
    const key = anchors.keys[Math.min(block, anchors.keys.length) - 1];
    if (key === undefined) return undefined;
    const anchored = Math.min(block, anchors.keys.length) * anchorSpacing;
    return { after: key, skip: offset - anchored };
  }

  /** Reads the anchors after the last known one, up to `block` (at most `maxNewAnchors` more). */
  private async extend(
    field: SortField,
    descending: boolean,
    order: string,
    anchors: Anchors,
    block: number,
  ): Promise<Anchors> {
    const generation = this.generation;
    const column = columns[field];
    const direction = descending ? 'DESC' : 'ASC';
    const last = anchors.keys.at(-1);
    const wanted = Math.min(block - anchors.keys.length, maxNewAnchors);
    // By id the anchor's id alone is the key (afterAnchorSql): one parameter fewer.
    const after =
      last === undefined
        ? { sql: '', parameters: [] }
        : field === 'id'
          ? { sql: `WHERE ${afterAnchorSql(field, descending, '', '$2')}`, parameters: [last.id] }
          : {
              sql: `WHERE ${afterAnchorSql(field, descending, '$2', '$3')}`,
              parameters: [last.value, last.id],
            };
    const rows = await this.dataSource.query<{ value: string; id: string }[]>(
      `SELECT value, id FROM (
         SELECT ${column.text} AS value, tenant.id,
                row_number() OVER (ORDER BY ${column.sql} ${direction}, tenant.id ${direction}) AS n
           FROM tenant ${after.sql}
          ORDER BY ${column.sql} ${direction}, tenant.id ${direction}
          LIMIT $1) walked
        WHERE n % ${anchorSpacing} = 0 ORDER BY n`,
      [wanted * anchorSpacing, ...after.parameters],
    );
    const extended = { readAt: anchors.readAt, keys: [...anchors.keys, ...rows] };
    if (generation === this.generation) this.orders.set(order, extended);
    return extended;
  }
}
