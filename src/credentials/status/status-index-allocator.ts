import { Injectable } from '@nestjs/common';
import { randomInt, randomUUID } from 'node:crypto';
import { type EntityManager } from 'typeorm';
import { statusListLength, type StatusPurpose } from './bitstring.js';
import { StatusListsService } from './status-lists.service.js';
import {
  StatusEntryRepository,
  type IssueEntries,
  type Taken,
  type TakenOnIssue,
} from './status-entry.repository.js';
import { StatusListRepository } from './status-list.repository.js';

/** What a credential carries for one purpose (Bitstring Status List §2.1). */
export interface StatusEntry {
  id: string;
  type: 'BitstringStatusListEntry';
  statusPurpose: StatusPurpose;
  statusListIndex: string;
  statusListCredential: string;
}

/** Entries taken by the caller's statement (`takeRandomItems`), per purpose; null where none was. */
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
      const entry = await this.entries.takeRandom(
        manager,
        tenantId,
        purpose,
        credentialId,
        randomCandidates(),
      );
      taken.push(entry ?? null);
    }
    return this.complete(manager, tenantId, credentialId, purposes, taken);
  }

  /**
   * The usual statement of `allocate` for each purpose, as WITH items of the issue statement
   * (StatusEntryRepository.issueEntries); its select reads what they took, null where the slow way
   * must take it (`complete`). Undefined for no purpose.
   */
  takeRandomItems(
    tenantId: string,
    credentialId: string,
    purposes: StatusPurpose[],
  ): IssueEntries | undefined {
    return this.entries.issueEntries(
      tenantId,
      credentialId,
      purposes.map((purpose) => ({ purpose, candidates: randomCandidates() })),
    );
  }

  /** What the issue statement's items (`takeRandomItems`) took, per purpose; null where none was. */
  takenOnIssue(row: TakenOnIssue | undefined, purposes: StatusPurpose[]): TakenEntries {
    const columns = [row?.status_entry_0, row?.status_entry_1];
    return purposes.map((_, n) => columns[n] ?? null);
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
