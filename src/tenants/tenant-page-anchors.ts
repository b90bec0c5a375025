import { Injectable } from '@nestjs/common';
import { type SortField } from './dto/list-tenants.query.js';
import { TenantRepository } from './tenant.repository.js';
import { type AnchorKey } from './tenant-sort-keys.js';

/** Rows between two anchors: a deep page walks fewer than this many index entries. */
export const anchorSpacing = 1000;
/** How long anchors serve before they are read again: how stale another instance's change leaves them. */
const anchorTtlMs = 1000;
/** Anchors one read may add: a page beyond them walks from the last one. */
const maxNewAnchors = 200;

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

  constructor(private readonly tenants: TenantRepository) {}

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
    const wanted = Math.min(block - anchors.keys.length, maxNewAnchors);
    const rows = await this.tenants.anchorKeys(
      field,
      descending,
      anchors.keys.at(-1),
      anchorSpacing,
      wanted * anchorSpacing,
    );
    const extended = { readAt: anchors.readAt, keys: [...anchors.keys, ...rows] };
    if (generation === this.generation) this.orders.set(order, extended);
    return extended;
  }
}
