import { Injectable } from '@nestjs/common';
import { randomInt, randomUUID } from 'node:crypto';
import { type EntityManager } from 'typeorm';
import { rowsOf } from '../../database/rows-of.js';
import { statusListLength, type StatusPurpose } from './bitstring.js';
import { StatusListsService } from './status-lists.service.js';

/** What a credential carries for one purpose (Bitstring Status List §2.1). */
export interface StatusEntry {
  id: string;
  type: 'BitstringStatusListEntry';
  statusPurpose: StatusPurpose;
  statusListIndex: string;
  statusListCredential: string;
}

/** An index that was free when read; claim takes it. */
export interface PickedIndex {
  purpose: StatusPurpose;
  listId: string;
  index: number;
}

/** A picked index was taken, or its list filled up, between the pick and the claim. */
export class StatusIndexTaken extends Error {
  constructor() {
    super('The picked status index was taken meanwhile');
  }
}

/** Room in the tenant's oldest open list of a purpose ($1, $2), its row locked until the commit. */
const takeRoomSql = `UPDATE credential_status_list SET allocated = allocated + 1
  WHERE id = (SELECT id FROM credential_status_list
               WHERE tenant_id = $1 AND purpose = $2 AND allocated < length
               ORDER BY created_at LIMIT 1 FOR UPDATE)
  RETURNING id`;

/** Room in the picked list ($5) if it still has some, its row locked until the commit. */
const claimRoomSql = `UPDATE credential_status_list SET allocated = allocated + 1
  WHERE id = $5 AND tenant_id = $1 AND purpose = $2 AND allocated < length
  RETURNING id`;

/**
 * Room by `roomSql`, and index $4 in that list for the credential ($3) of tenant $1 and purpose $2:
 * no row when there was no room, `list_index` null when the index was taken.
 */
const takeIndexSql = (roomSql: string) => `WITH list AS (${roomSql}),
  entry AS (
    INSERT INTO credential_status_entry (list_id, list_index, tenant_id, credential_id, purpose)
    SELECT id, $4, $1, $3, $2 FROM list
    ON CONFLICT (list_id, list_index) DO NOTHING RETURNING list_index)
  SELECT list.id, (SELECT list_index FROM entry) AS list_index FROM list`;

/** The first of the candidate indices (an int[]) that the list has not given out; none when all are. */
const freeCandidateSql = (
  listId: string,
  candidates: string,
) => `SELECT i FROM unnest(${candidates}::int[]) i
  WHERE NOT EXISTS (SELECT 1 FROM credential_status_entry e
                     WHERE e.list_id = ${listId} AND e.list_index = i)
  LIMIT 1`;

/** Random indices tried before a list is searched for a free one (only when it is nearly full). */
const randomTries = 32;
const randomCandidates = () =>
  Array.from({ length: randomTries }, () => randomInt(statusListLength));

/**
 * Random, never reused indices in the tenant's status lists (at least 131,072 entries each, a new list
 * when one fills up), safe under concurrent issues.
 */
@Injectable()
export class StatusIndexAllocator {
  constructor(private readonly lists: StatusListsService) {}

  /**
   * Gives the credential a random, never reused index in a list of each purpose, inside the caller's
   * transaction; the list row stays locked until it commits. The way when pickFree found no room or
   * claim lost its index, and for a tenant's first list.
   */
  async allocate(
    manager: EntityManager,
    tenantId: string,
    credentialId: string,
    purposes: StatusPurpose[],
  ): Promise<StatusEntry[]> {
    const entries: StatusEntry[] = [];
    for (const purpose of purposes) {
      // Usually one statement: room in an open list and a random index in it.
      const taken = await this.takeFromOpenList(manager, tenantId, credentialId, purpose);
      const listId = taken?.id ?? (await this.listWithRoom(manager, tenantId, purpose));
      const index =
        taken?.list_index ??
        (await this.freeIndex(manager, listId, tenantId, credentialId, purpose));
      entries.push(this.entry(tenantId, listId, index, purpose));
    }
    return entries;
  }

  private entry(
    tenantId: string,
    listId: string,
    index: number,
    purpose: StatusPurpose,
  ): StatusEntry {
    const url = this.lists.listUrl(tenantId, listId);
    return {
      id: `${url}#${index}`,
      type: 'BitstringStatusListEntry',
      statusPurpose: purpose,
      statusListIndex: String(index),
      statusListCredential: url,
    };
  }

  /**
   * A free index in the tenant's open list of each purpose, read without locking anything, so the
   * credential can be signed before any lock is taken; undefined when a purpose has no open list or
   * none of a few random indices is free (the list is nearly full): then allocate is the way.
   */
  async pickFree(
    manager: EntityManager,
    tenantId: string,
    purposes: StatusPurpose[],
  ): Promise<PickedIndex[] | undefined> {
    const picked: PickedIndex[] = [];
    for (const purpose of purposes) {
      const [free] = await manager.query<{ id: string; list_index: number }[]>(
        `SELECT l.id, c.i AS list_index
           FROM (SELECT id FROM credential_status_list
                  WHERE tenant_id = $1 AND purpose = $2 AND allocated < length
                  ORDER BY created_at LIMIT 1) l
          CROSS JOIN LATERAL (${freeCandidateSql('l.id', '$3')}) c`,
        [tenantId, purpose, randomCandidates()],
      );
      if (free === undefined) return undefined;
      picked.push({ purpose, listId: free.id, index: free.list_index });
    }
    return picked;
  }

  /** The status entries a credential carries for the picked indices. */
  entriesOf(tenantId: string, picked: PickedIndex[]): StatusEntry[] {
    return picked.map(({ purpose, listId, index }) => this.entry(tenantId, listId, index, purpose));
  }

  /**
   * Takes the picked indices inside the issuing transaction, as its last statement so the list's row
   * is locked only until the commit. Throws StatusIndexTaken, which rolls the transaction back, when
   * another issue took an index or the list filled up meanwhile.
   */
  async claim(
    manager: EntityManager,
    tenantId: string,
    credentialId: string,
    picked: PickedIndex[],
  ): Promise<void> {
    for (const { purpose, listId, index } of picked) {
      const [taken] = await manager.query<{ list_index: number | null }[]>(
        takeIndexSql(claimRoomSql),
        [tenantId, purpose, credentialId, index, listId],
      );
      if (taken?.list_index == null) throw new StatusIndexTaken();
    }
  }

  /**
   * Takes room in the tenant's oldest open list of the purpose (locking its row) and tries one random
   * index in it: undefined when no list has room, `list_index` null when the index was taken.
   */
  private async takeFromOpenList(
    manager: EntityManager,
    tenantId: string,
    credentialId: string,
    purpose: StatusPurpose,
  ): Promise<{ id: string; list_index: number | null } | undefined> {
    const [taken] = await manager.query<{ id: string; list_index: number | null }[]>(
      takeIndexSql(takeRoomSql),
      [tenantId, purpose, credentialId, randomInt(statusListLength)],
    );
    return taken;
  }

  /** After takeFromOpenList found no room: waits its turn, then uses a list made meanwhile or makes one. */
  private async listWithRoom(
    manager: EntityManager,
    tenantId: string,
    purpose: StatusPurpose,
  ): Promise<string> {
    // One new list at a time per tenant and purpose: whoever waited here uses the list just made.
    await manager.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [
      `credential_status_list/${tenantId}/${purpose}`,
    ]);
    const [madeMeanwhile] = rowsOf<{ id: string }>(
      await manager.query(takeRoomSql, [tenantId, purpose]),
    );
    if (madeMeanwhile !== undefined) return madeMeanwhile.id;
    const id = randomUUID();
    await manager.query(
      `INSERT INTO credential_status_list (id, tenant_id, purpose, length, allocated, bits)
       VALUES ($1, $2, $3, $4, 1, $5)`,
      [id, tenantId, purpose, statusListLength, Buffer.alloc(statusListLength / 8)],
    );
    return id;
  }

  private async freeIndex(
    manager: EntityManager,
    listId: string,
    tenantId: string,
    credentialId: string,
    purpose: StatusPurpose,
  ): Promise<number> {
    // The first free index `freeSql` finds, given its parameter $2, if no concurrent issue took it.
    const takeFirstFree = (freeSql: string, parameter: unknown) =>
      manager.query<{ list_index: number }[]>(
        `INSERT INTO credential_status_entry (list_id, list_index, tenant_id, credential_id, purpose)
         SELECT $1, i, $3, $4, $5 FROM (${freeSql}) free
         ON CONFLICT (list_id, list_index) DO NOTHING RETURNING list_index`,
        [listId, parameter, tenantId, credentialId, purpose],
      );
    const [random] = await takeFirstFree(freeCandidateSql('$1', '$2'), randomCandidates());
    if (random !== undefined) return random.list_index;
    const [searched] = await takeFirstFree(
      `SELECT i FROM generate_series(0, $2::int - 1) i
        WHERE NOT EXISTS (SELECT 1 FROM credential_status_entry WHERE list_id = $1 AND list_index = i)
        ORDER BY random() LIMIT 1`,
      statusListLength,
    );
    if (searched === undefined) throw new Error(`Status list ${listId} has no free index`);
    return searched.list_index;
  }
}
