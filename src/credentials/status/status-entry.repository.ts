import { Injectable } from '@nestjs/common';
import { type EntityManager } from 'typeorm';
import { type StatusPurpose } from './bitstring.js';

/** An index taken in a list: the primary key of its entry. */
export interface Taken {
  list_id: string;
  list_index: number;
}

/** Credential $4 (tenant $3, purpose $5) at the first free of the random indices $2 in list $1. */
const takeCandidateSql = `INSERT INTO credential_status_entry
    (list_id, list_index, tenant_id, credential_id, purpose)
  SELECT $1, i, $3, $4, $5 FROM (
    SELECT i FROM unnest($2::int[]) i
     WHERE (SELECT true FROM credential_status_entry e
             WHERE e.list_id = $1 AND e.list_index = i) IS NULL
     LIMIT 1) free
  ON CONFLICT (list_id, list_index) DO NOTHING RETURNING list_id, list_index`;

/** Credential $4 (tenant $3, purpose $5) at index $2 of list $1, unless it was taken meanwhile. */
const takeIndexSql = `INSERT INTO credential_status_entry
    (list_id, list_index, tenant_id, credential_id, purpose)
  SELECT $1, i, $3, $4, $5 FROM (SELECT $2::int AS i) free
  ON CONFLICT (list_id, list_index) DO NOTHING RETURNING list_id, list_index`;

/** A free index of list $1 (length $2) at random, searched for: only once random tries failed. */
const searchFreeSql = `SELECT i FROM generate_series(0, $2::int - 1) i
  WHERE NOT EXISTS (SELECT 1 FROM credential_status_entry e WHERE e.list_id = $1 AND e.list_index = i)
  ORDER BY random() LIMIT 1`;

/**
 * The indices credentials hold in their tenant's status lists: an index is taken by inserting its
 * entry, whose primary key (list, index) makes it unique. Each query runs in the caller's transaction;
 * these are the slow way's.
 *
 * What status/ publishes to other folders' statements (migrations/1795799200000-published-statements.ts,
 * docs/architecture.md), a change of which changes them:
 * - `allocate_status_entries(for_tenant, for_credential, purposes varchar[], candidates int[][])`
 *   returns `(purpose, list_id, list_index)` for each purpose it took: the usual take, as
 *   `takeCandidate` in the open list, called by the issue statement
 *   (issuing/issued-credential.repository.ts). A purpose left out is taken the slow way.
 * - the view `credential_status`: `(tenant_id, credential_id, purpose, list_id, list_index, is_set)`,
 *   each entry with its bit, read by the records page (the same repository).
 */
@Injectable()
export class StatusEntryRepository {
  /** The first free of `candidates` in the list, taken for the credential; undefined if none was. */
  async takeCandidate(
    manager: EntityManager,
    listId: string,
    candidates: number[],
    entry: { tenantId: string; credentialId: string; purpose: StatusPurpose },
  ): Promise<Taken | undefined> {
    const { tenantId, credentialId, purpose } = entry;
    const [taken] = await manager.query<Taken[]>(takeCandidateSql, [
      listId,
      candidates,
      tenantId,
      credentialId,
      purpose,
    ]);
    return taken;
  }

  /** Index `index` of the list, taken for the credential; undefined if it was taken meanwhile. */
  async takeIndex(
    manager: EntityManager,
    listId: string,
    index: number,
    entry: { tenantId: string; credentialId: string; purpose: StatusPurpose },
  ): Promise<Taken | undefined> {
    const { tenantId, credentialId, purpose } = entry;
    const [taken] = await manager.query<Taken[]>(takeIndexSql, [
      listId,
      index,
      tenantId,
      credentialId,
      purpose,
    ]);
    return taken;
  }

  /** A free index of the list as this snapshot sees it, at random; undefined when it is full. */
  async searchFree(
    manager: EntityManager,
    listId: string,
    length: number,
  ): Promise<number | undefined> {
    const [free] = await manager.query<{ i: number }[]>(searchFreeSql, [listId, length]);
    return free?.i;
  }
}
