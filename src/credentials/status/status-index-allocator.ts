import { Injectable } from '@nestjs/common';
import { randomInt, randomUUID } from 'node:crypto';
import { type EntityManager } from 'typeorm';
import { statusListLength, type StatusPurpose } from './bitstring.js';
import { StatusListsService } from './status-lists.service.js';
import { StatusEntryRepository, type Taken } from './status-entry.repository.js';
import { StatusListRepository } from './status-list.repository.js';

/** What a credential carries for one purpose (Bitstring Status List §2.1). */
export interface StatusEntry {
  id: string;
  type: 'BitstringStatusListEntry';
  statusPurpose: StatusPurpose;
  statusListIndex: string;
  statusListCredential: string;
}

/** Entries the issue statement took, per purpose; null where none was. */
export type TakenEntries = (Taken | null)[];

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
  constructor(
    private readonly lists: StatusListsService,
    private readonly entries: StatusEntryRepository,
    private readonly listRows: StatusListRepository,
  ) {}

  /** The random indices the usual take tries, first free first (the issue statement's). */
  randomCandidates(): number[] {
    return randomCandidates();
  }

  /**
   * The status entries of `taken` (by the issue statement, in the caller's transaction), each purpose
   * none took taken the slow way, in the order of `purposes` (always the same, so concurrent issues
   * never wait in a circle).
   */
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
      const entry = { tenantId, credentialId, purpose };
      const random = await this.entries.takeCandidate(manager, listId, randomCandidates(), entry);
      if (random !== undefined) return random;
      const free = await this.entries.searchFree(manager, listId, statusListLength);
      if (free === undefined) {
        // Seen full by this snapshot: issues stop picking in it; a concurrent marker waits, then skips.
        await this.listRows.markFilled(manager, listId);
        continue;
      }
      const searched = await this.entries.takeIndex(manager, listId, free, entry);
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
    const existing = await this.listRows.openList(manager, tenantId, purpose);
    if (existing !== undefined) return existing;
    const made = await this.listRows.makeList(manager, {
      id: randomUUID(),
      tenantId,
      purpose,
      length: statusListLength,
    });
    return made ?? (await this.listRows.openList(manager, tenantId, purpose));
  }
}
