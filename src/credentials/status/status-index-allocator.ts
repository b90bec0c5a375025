import { Injectable } from '@nestjs/common';
import { randomInt, randomUUID } from 'node:crypto';
import { type EntityManager } from 'typeorm';
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

export type Taken = { list_id: string; list_index: number };

/**
 * The first of the candidate indices (an int[]) that list `listId` has not given out. A scalar
 * subquery per candidate is an index probe each, stopped at the first free one; as NOT EXISTS the
 * planner may join all the list's entries instead, which grows with the table.
 */
const freeCandidateSql = (listId: string, candidates: string) =>
  `SELECT i FROM unnest(${candidates}::int[]) i
    WHERE (SELECT true FROM credential_status_entry e
            WHERE e.list_id = ${listId} AND e.list_index = i) IS NULL
    LIMIT 1`;

/**
 * The entry of credential $c (tenant $t, purpose $p) at the first free of the random indices $r in the
 * open list, the parameters numbered from `$first` in that order: an insert under the entry's primary
 * key, which a concurrent issue's same pick makes a no-op. No row when there is no open list, all
 * candidates were taken, or the pick was lost.
 */
const takeRandomSql = (first: number) => {
  const [tenant, purpose, credential, candidates] = [0, 1, 2, 3].map((n) => `$${first + n}`);
  return `INSERT INTO credential_status_entry
      (list_id, list_index, tenant_id, credential_id, purpose)
    SELECT l.id, c.i, l.tenant_id, ${credential}::text, l.purpose FROM credential_status_list l
     CROSS JOIN LATERAL (${freeCandidateSql('l.id', candidates)}) c
     WHERE l.tenant_id = ${tenant} AND l.purpose = ${purpose} AND l.filled_at IS NULL
    ON CONFLICT (list_id, list_index) DO NOTHING
    RETURNING list_id, list_index`;
};

/** Entries taken by the caller's statement (`takeRandomItems`), per purpose; null where none was. */
export type TakenEntries = (Taken | null)[];

/** A free index of list $1 (length $2) at random, searched for: only once random tries failed. */
const searchFreeSql = `SELECT i FROM generate_series(0, $2::int - 1) i
  WHERE NOT EXISTS (SELECT 1 FROM credential_status_entry e WHERE e.list_id = $1 AND e.list_index = i)
  ORDER BY random() LIMIT 1`;

/** Random indices tried at once; all of them taken means the list is nearly full. */
const randomTries = 32;
const randomCandidates = () =>
  Array.from({ length: randomTries }, () => randomInt(statusListLength));

/** Rounds of the slow way: a lost last index, the list marked filled, the next one opened, taken. */
const slowRounds = 8;

/**
 * Random, never reused indices in the tenant's status lists (131,072 entries each; a new list when one
 * fills up), safe under concurrent issues without a row that every issue updates or locks: an index is
 * taken by inserting its entry, whose primary key (list, index) makes it unique.
 */
@Injectable()
export class StatusIndexAllocator {
  constructor(private readonly lists: StatusListsService) {}

  /**
   * Gives the credential a random, never reused index in a list of each purpose, inside the caller's
   * transaction, in the order of `purposes` (always the same, so concurrent issues never wait in a
   * circle). Usually one statement per purpose; a nearly full list, a lost pick and a tenant's first
   * list take the slow way.
   */
  async allocate(
    manager: EntityManager,
    tenantId: string,
    credentialId: string,
    purposes: StatusPurpose[],
  ): Promise<StatusEntry[]> {
    const taken: TakenEntries = [];
    for (const purpose of purposes) {
      const [entry] = await manager.query<Taken[]>(takeRandomSql(1), [
        tenantId,
        purpose,
        credentialId,
        randomCandidates(),
      ]);
      taken.push(entry ?? null);
    }
    return this.complete(manager, tenantId, credentialId, purposes, taken);
  }

  /**
   * The usual statement of `allocate` for each purpose, as WITH items (`status_entry_<n>`) of a
   * statement of the caller's, parameters numbered from `$first`; `select` reads what they took, one
   * column per purpose (`status_entry_<n>`, null when the slow way must take it: `complete`).
   */
  takeRandomItems(
    tenantId: string,
    credentialId: string,
    purposes: StatusPurpose[],
    first: number,
  ): { items: string; parameters: unknown[]; select: string } {
    const names = purposes.map((_, n) => `status_entry_${n}`);
    return {
      items: names.map((name, n) => `${name} AS (${takeRandomSql(first + 4 * n)})`).join(',\n'),
      parameters: purposes.flatMap((purpose) => [
        tenantId,
        purpose,
        credentialId,
        randomCandidates(),
      ]),
      select: names
        .map(
          (name) => `(SELECT json_build_object('list_id', list_id, 'list_index', list_index)
                           FROM ${name}) AS ${name}`,
        )
        .join(', '),
    };
  }

  /** The status entries of `taken` (`takeRandomItems`), each purpose none took taken the slow way. */
  async complete(
    manager: EntityManager,
    tenantId: string,
    credentialId: string,
    purposes: StatusPurpose[],
    taken: TakenEntries,
  ): Promise<StatusEntry[]> {
    const entries: StatusEntry[] = [];
    for (const [n, purpose] of purposes.entries()) {
      const { list_id, list_index } =
        taken[n] ?? (await this.takeSlowly(manager, tenantId, credentialId, purpose));
      entries.push(this.entry(tenantId, list_id, list_index, purpose));
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
   * Random tries again in the open list (opened if there is none), then a search of it; a list with no
   * free index left is marked filled and the next one opened.
   */
  private async takeSlowly(
    manager: EntityManager,
    tenantId: string,
    credentialId: string,
    purpose: StatusPurpose,
  ): Promise<Taken> {
    for (let round = 0; round < slowRounds; round++) {
      const listId = await this.openList(manager, tenantId, purpose);
      if (listId === undefined) continue;
      const take = (freeSql: string, parameter: unknown) =>
        manager.query<Taken[]>(
          `INSERT INTO credential_status_entry
             (list_id, list_index, tenant_id, credential_id, purpose)
           SELECT $1, i, $3, $4, $5 FROM (${freeSql}) free
           ON CONFLICT (list_id, list_index) DO NOTHING RETURNING list_id, list_index`,
          [listId, parameter, tenantId, credentialId, purpose],
        );
      const [random] = await take(freeCandidateSql('$1', '$2'), randomCandidates());
      if (random !== undefined) return random;
      const [free] = await manager.query<{ i: number }[]>(searchFreeSql, [
        listId,
        statusListLength,
      ]);
      if (free === undefined) {
        // Seen full by this snapshot: issues stop picking in it; a concurrent marker waits, then skips.
        await manager.query(
          `UPDATE credential_status_list SET filled_at = now() WHERE id = $1 AND filled_at IS NULL`,
          [listId],
        );
        continue;
      }
      const [searched] = await take('SELECT $2::int AS i', free.i);
      if (searched !== undefined) return searched;
    }
    throw new Error(`No free status index for ${tenantId}/${purpose} in ${slowRounds} rounds`);
  }

  /**
   * The tenant's open list of the purpose, made when there is none; a concurrent maker's insert waits
   * for the other's commit (the unique open-list index), then reads the list it made (undefined if that
   * one filled meanwhile).
   */
  private async openList(
    manager: EntityManager,
    tenantId: string,
    purpose: StatusPurpose,
  ): Promise<string | undefined> {
    const open = () =>
      manager.query<{ id: string }[]>(
        `SELECT id FROM credential_status_list
          WHERE tenant_id = $1 AND purpose = $2 AND filled_at IS NULL`,
        [tenantId, purpose],
      );
    const [existing] = await open();
    if (existing !== undefined) return existing.id;
    const [made] = await manager.query<{ id: string }[]>(
      `INSERT INTO credential_status_list (id, tenant_id, purpose, length, bits)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (tenant_id, purpose) WHERE filled_at IS NULL DO NOTHING RETURNING id`,
      [randomUUID(), tenantId, purpose, statusListLength, Buffer.alloc(statusListLength / 8)],
    );
    return (made ?? (await open())[0])?.id;
  }
}
