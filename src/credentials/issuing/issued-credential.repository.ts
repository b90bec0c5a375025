import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { violates } from '../../database/constraint-violation.js';
import { NamedStatement } from '../../database/named-parameters.js';
import { type StoredDidKey } from '../../did/did.service.js';
import { type CredentialState } from '../dto/issued-credentials.dto.js';
import {
  type IssuanceRecord,
  recordIssueCall,
  type RecordIssueValues,
  type TakenOnIssue,
} from './record-issue.js';

/** One issuance record with its status entries and their state. */
export interface RecordRow {
  id: string;
  types: string[];
  cryptosuite: string;
  format: string;
  offer_id: string | null;
  configuration_id: string | null;
  created_at: Date;
  state: CredentialState;
  /** created_at to the microsecond (UTC), as a cursor keeps it. */
  cursor_at: string;
  status: { statusPurpose: string; listId: string; statusListIndex: number; set: boolean }[];
}

/** The record alone, for `EventOutbox.withChange`: an issue without a status entry. */
export interface RecordChange {
  sql: string;
  parameters: [string, string, string[], string, string, string, string | null, string | null];
}

/** The issue statement's values: `record_issue`'s, and the issuer the credential names (or null). */
export type IssueValues = RecordIssueValues & { issuer: string | null };

/**
 * The issue statement's one row: null for `taken` when it took no entry, beside the tenant's DID key
 * that signs the credential. No row, nothing written: no such tenant, or its DID is not the issuer.
 */
export interface IssuedRow extends StoredDidKey {
  taken: TakenOnIssue | null;
}

/** The listing's filters; absent ones match all. */
export interface RecordFilter {
  type?: string;
  state?: CredentialState;
}

/** A page by number (offset) or after a cursor (the last row's cursor_at and id). */
export interface RecordWindow {
  limit: number;
  offset: number;
  after?: { at: string; id: string };
}

/** The keys a credential id the tenant already used breaks. */
const duplicateConstraints = ['issued_credential_pkey', 'credential_status_entry_credential_idx'];

/*
 * An issue without a status entry: the record, which `EventOutbox.withChange` writes with its event in
 * one statement. Not the issue statement with no purpose: planning its entries' part cost PostgreSQL
 * 0.13 ms per issue even with nothing to take.
 */
const recordSql = `INSERT INTO issued_credential
    (tenant_id, id, types, cryptosuite, issued_by, format, offer_id, configuration_id)
  VALUES ($1, $2, $3::text[], $4, $5, $6, $7::uuid, $8) RETURNING id`;

/*
 * An issue with status entries, one statement (one round trip, docs/performance.md): `record_issue`,
 * the function issuing publishes (RecordIssue1795800200000), writes the issuance record, for each
 * status purpose an entry at the first free of its random candidates in the tenant's open list, and
 * the credential.issued event with its deliveries. A purpose the entries' function could not take (no
 * open list, all candidates taken, a lost pick) is absent from `taken`, and the allocator takes it the
 * slow way (status/status-index-allocator.ts). The OpenID4VCI credential endpoint calls the same
 * function in its own statement.
 *
 * It answers the tenant's DID key beside, read in the same round trip (`tenant_did_key_of`): the
 * issue is written only for a tenant that has one, and whose DID is the issuer the credential names,
 * if it names one (`:issuer`; not `IS NULL OR`, which the pool would plan at each call), once per key
 * row (tenant_id is unique).
 *
 * Issuing names its own table only: the entries are status/'s (`allocate_status_entries`), the event
 * and its fan-out webhooks' (`enqueue_webhook_event`, the rule of its own statements, the row from
 * `EventOutbox.inStatement`), the key did/'s (`tenant_did_key_of`), each a function its owner
 * publishes (docs/architecture.md).
 */
const issueStatement = new NamedStatement<IssueValues>(
  `SELECT ${recordIssueCall('')} AS taken, key.did, key.public_key AS "publicKey",
          key.private_key_sealed AS "privateKeySealed", key.master_key_id AS "masterKeyId"
     FROM tenant_did_key_of(:tenantId) AS key
    WHERE key.did = coalesce(:issuer::varchar, key.did)`,
);

/*
 * Tenant $1's records, newest first, filtered by type $2, state $3 and id $4 and after the cursor
 * ($5, $6) when given (a null parameter filters nothing: PostgreSQL folds it away when planning),
 * limit $7, offset $8. The state is revoked over suspended over active, from the entries' bits, read
 * in the same statement through the view status/ publishes (`credential_status`, docs/architecture.md):
 * a page filtered by state is cut after the filter, which a second statement for the page's entries
 * could not do.
 */
const recordsSql = `SELECT c.id, c.types, c.cryptosuite, c.format, c.offer_id, c.configuration_id,
       c.created_at,
       CASE
         WHEN bool_or(s.purpose = 'revocation' AND s.is_set) THEN 'revoked'
         WHEN bool_or(s.purpose = 'suspension' AND s.is_set) THEN 'suspended'
         ELSE 'active' END AS state,
       to_char(c.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS cursor_at,
       coalesce(json_agg(json_build_object(
         'statusPurpose', s.purpose, 'listId', s.list_id, 'statusListIndex', s.list_index,
         'set', s.is_set
       ) ORDER BY s.purpose) FILTER (WHERE s.list_id IS NOT NULL), '[]') AS status
  FROM issued_credential c
  LEFT JOIN credential_status s ON s.tenant_id = c.tenant_id AND s.credential_id = c.id
 WHERE c.tenant_id = $1
   AND ($2::text IS NULL OR $2::text = ANY(c.types))
   AND ($4::text IS NULL OR c.id = $4::text)
   AND ($5::timestamptz IS NULL OR c.created_at < $5::timestamptz
        OR (c.created_at = $5::timestamptz AND c.id > $6::text))
 GROUP BY c.tenant_id, c.id
HAVING $3::text IS NULL OR $3::text = CASE
         WHEN bool_or(s.purpose = 'revocation' AND s.is_set) THEN 'revoked'
         WHEN bool_or(s.purpose = 'suspension' AND s.is_set) THEN 'suspended'
         ELSE 'active' END
 ORDER BY c.created_at DESC, c.id
 LIMIT $7 OFFSET $8`;

/** How many records of tenant $1 match type $2 and state $3 (null: any), as `recordsSql` filters. */
const countSql = `SELECT count(*)::int AS total FROM (
  SELECT c.id
    FROM issued_credential c
    LEFT JOIN credential_status s ON s.tenant_id = c.tenant_id AND s.credential_id = c.id
   WHERE c.tenant_id = $1
     AND ($2::text IS NULL OR $2::text = ANY(c.types))
   GROUP BY c.tenant_id, c.id
  HAVING $3::text IS NULL OR $3::text = CASE
           WHEN bool_or(s.purpose = 'revocation' AND s.is_set) THEN 'revoked'
           WHEN bool_or(s.purpose = 'suspension' AND s.is_set) THEN 'suspended'
           ELSE 'active' END) matching`;

/** The issuance records of each tenant: written with the credential, read for listing. */
@Injectable()
export class IssuedCredentialRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The record of an issue without a status entry, for `EventOutbox.withChange`. */
  recordChange(record: IssuanceRecord): RecordChange {
    return {
      sql: recordSql,
      parameters: [
        record.tenantId,
        record.id,
        record.types,
        record.cryptosuite,
        record.issuedBy,
        record.format ?? 'ldp_vc',
        record.offerId ?? null,
        record.configurationId ?? null,
      ],
    };
  }

  /**
   * Writes the issue statement in the caller's transaction; its one row says what the entries took and
   * carries the tenant's DID key. No row, nothing written: no such tenant, or its DID is not the issuer.
   */
  issue(manager: EntityManager, values: IssueValues): Promise<IssuedRow[]> {
    return manager.query<IssuedRow[]>(issueStatement.text, issueStatement.values(values));
  }

  /** The format of a credential the tenant issued, or undefined when it issued none with that id. */
  async formatOf(tenantId: string, id: string): Promise<string | undefined> {
    const [row] = await this.dataSource.query<{ format: string }[]>(
      'SELECT format FROM issued_credential WHERE tenant_id = $1 AND id = $2',
      [tenantId, id],
    );
    return row?.format;
  }

  /** Whether the issue statement failed on a credential id the tenant used. */
  isDuplicate(error: unknown): boolean {
    return duplicateConstraints.some((constraint) => violates(error, 'unique', constraint));
  }

  /** Newest first: one page of the tenant's records matching `filter`. */
  page(tenantId: string, filter: RecordFilter, window: RecordWindow): Promise<RecordRow[]> {
    return this.dataSource.query<RecordRow[]>(recordsSql, [
      tenantId,
      filter.type ?? null,
      filter.state ?? null,
      null,
      window.after?.at ?? null,
      window.after?.id ?? null,
      window.limit,
      window.offset,
    ]);
  }

  async count(tenantId: string, filter: RecordFilter): Promise<number> {
    const [{ total }] = await this.dataSource.query<[{ total: number }]>(countSql, [
      tenantId,
      filter.type ?? null,
      filter.state ?? null,
    ]);
    return total;
  }

  async findById(tenantId: string, id: string): Promise<RecordRow | undefined> {
    const [row] = await this.dataSource.query<RecordRow[]>(recordsSql, [
      tenantId,
      null,
      null,
      id,
      null,
      null,
      1,
      0,
    ]);
    return row;
  }
}
