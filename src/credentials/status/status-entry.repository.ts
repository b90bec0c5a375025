import { Injectable } from '@nestjs/common';
import { type EntityManager } from 'typeorm';
import { type StatusPurpose } from './bitstring.js';

/** An index taken in a list: the primary key of its entry. */
export interface Taken {
  list_id: string;
  list_index: number;
}

/** What the issue statement's entries took (`issueEntries`): one column per purpose, null if none. */
export interface TakenOnIssue {
  status_entry_0?: Taken | null;
  status_entry_1?: Taken | null;
}

/** Tenant, purpose, credential id and the random candidate indices: one purpose's usual take. */
type TakeParameters = [string, StatusPurpose, string, number[]];

/** The issue statement's WITH items that take the entries, and the select that reads them. */
export interface IssueEntries {
  before: string;
  select: string;
  parameters: TakeParameters[number][];
}

/*
 * The entry of credential $3 (tenant $1, purpose $2) at the first free of the random indices $4 in the
 * open list: an insert under the entry's primary key, which a concurrent issue's same pick makes a
 * no-op. No row when there is no open list, all candidates were taken, or the pick was lost. A scalar
 * subquery per candidate is an index probe each, stopped at the first free one; as NOT EXISTS the
 * planner may join all the list's entries instead, which grows with the table.
 */
const takeRandomSql = `INSERT INTO credential_status_entry
    (list_id, list_index, tenant_id, credential_id, purpose)
  SELECT l.id, c.i, l.tenant_id, $3::text, l.purpose FROM credential_status_list l
   CROSS JOIN LATERAL (
     SELECT i FROM unnest($4::int[]) i
      WHERE (SELECT true FROM credential_status_entry e
              WHERE e.list_id = l.id AND e.list_index = i) IS NULL
      LIMIT 1) c
   WHERE l.tenant_id = $1 AND l.purpose = $2 AND l.filled_at IS NULL
  ON CONFLICT (list_id, list_index) DO NOTHING
  RETURNING list_id, list_index`;

/*
 * takeRandomSql as WITH items of the issue statement, after the issuance record's eight parameters:
 * one purpose ($9..$12), or two ($9..$12, then $13..$16).
 */
const takeOneOnIssueSql = `status_entry_0 AS (
  INSERT INTO credential_status_entry (list_id, list_index, tenant_id, credential_id, purpose)
  SELECT l.id, c.i, l.tenant_id, $11::text, l.purpose FROM credential_status_list l
   CROSS JOIN LATERAL (
     SELECT i FROM unnest($12::int[]) i
      WHERE (SELECT true FROM credential_status_entry e
              WHERE e.list_id = l.id AND e.list_index = i) IS NULL
      LIMIT 1) c
   WHERE l.tenant_id = $9 AND l.purpose = $10 AND l.filled_at IS NULL
  ON CONFLICT (list_id, list_index) DO NOTHING
  RETURNING list_id, list_index)`;

const takeTwoOnIssueSql = `status_entry_0 AS (
  INSERT INTO credential_status_entry (list_id, list_index, tenant_id, credential_id, purpose)
  SELECT l.id, c.i, l.tenant_id, $11::text, l.purpose FROM credential_status_list l
   CROSS JOIN LATERAL (
     SELECT i FROM unnest($12::int[]) i
      WHERE (SELECT true FROM credential_status_entry e
              WHERE e.list_id = l.id AND e.list_index = i) IS NULL
      LIMIT 1) c
   WHERE l.tenant_id = $9 AND l.purpose = $10 AND l.filled_at IS NULL
  ON CONFLICT (list_id, list_index) DO NOTHING
  RETURNING list_id, list_index),
status_entry_1 AS (
  INSERT INTO credential_status_entry (list_id, list_index, tenant_id, credential_id, purpose)
  SELECT l.id, c.i, l.tenant_id, $15::text, l.purpose FROM credential_status_list l
   CROSS JOIN LATERAL (
     SELECT i FROM unnest($16::int[]) i
      WHERE (SELECT true FROM credential_status_entry e
              WHERE e.list_id = l.id AND e.list_index = i) IS NULL
      LIMIT 1) c
   WHERE l.tenant_id = $13 AND l.purpose = $14 AND l.filled_at IS NULL
  ON CONFLICT (list_id, list_index) DO NOTHING
  RETURNING list_id, list_index)`;

const readOneOnIssueSql = `SELECT
  (SELECT json_build_object('list_id', list_id, 'list_index', list_index) FROM status_entry_0)
    AS status_entry_0
  FROM change`;

const readTwoOnIssueSql = `SELECT
  (SELECT json_build_object('list_id', list_id, 'list_index', list_index) FROM status_entry_0)
    AS status_entry_0,
  (SELECT json_build_object('list_id', list_id, 'list_index', list_index) FROM status_entry_1)
    AS status_entry_1
  FROM change`;

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
 * entry, whose primary key (list, index) makes it unique. Each query runs in the caller's transaction.
 */
@Injectable()
export class StatusEntryRepository {
  /** Takes a random free index in the open list (`takeRandomSql`); undefined when none was taken. */
  async takeRandom(
    manager: EntityManager,
    tenantId: string,
    purpose: StatusPurpose,
    credentialId: string,
    candidates: number[],
  ): Promise<Taken | undefined> {
    const parameters: TakeParameters = [tenantId, purpose, credentialId, candidates];
    const [taken] = await manager.query<Taken[]>(takeRandomSql, parameters);
    return taken;
  }

  /**
   * `takeRandom` for one or two purposes as WITH items of the issue statement, numbered after the
   * issuance record's eight parameters; undefined for none.
   */
  issueEntries(
    tenantId: string,
    credentialId: string,
    takes: { purpose: StatusPurpose; candidates: number[] }[],
  ): IssueEntries | undefined {
    if (takes.length === 0) return undefined;
    if (takes.length > 2) throw new Error('at most one entry per status purpose');
    const parameters = takes.flatMap(({ purpose, candidates }): TakeParameters[number][] => [
      tenantId,
      purpose,
      credentialId,
      candidates,
    ]);
    return takes.length === 1
      ? { before: takeOneOnIssueSql, select: readOneOnIssueSql, parameters }
      : { before: takeTwoOnIssueSql, select: readTwoOnIssueSql, parameters };
  }

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
