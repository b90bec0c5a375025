import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { violates } from '../../database/constraint-violation.js';
import { type CredentialState } from '../dto/issued-credentials.dto.js';

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

/** What an issuance records: never the credential's claims. */
export interface IssuanceRecord {
  tenantId: string;
  id: string;
  types: string[];
  cryptosuite: string;
  issuedBy: string;
  /** `ldp_vc` when absent. */
  format?: string;
  /** The OpenID4VCI offer and configuration it was issued for, if any. */
  offerId?: string | null;
  configurationId?: string | null;
}

/** The record's INSERT for `EventOutbox.withChange`: parameters $1..$8, RETURNING id. */
export interface RecordStatement {
  sql: string;
  parameters: [string, string, string[], string, string, string, string | null, string | null];
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

const recordSql = `INSERT INTO issued_credential
    (tenant_id, id, types, cryptosuite, issued_by, format, offer_id, configuration_id)
  VALUES ($1, $2, $3::text[], $4, $5, $6, $7::uuid, $8) RETURNING id`;

/*
 * Tenant $1's records, newest first, filtered by type $2, state $3 and id $4 and after the cursor
 * ($5, $6) when given (a null parameter filters nothing: PostgreSQL folds it away when planning),
 * limit $7, offset $8. The state is revoked over suspended over active, from the entries' bits; the
 * status tables are this feature's own, read in the same statement. get_bit counts a byte's bits
 * from the least significant, the list from the most (Bitstring Status List §2.1).
 */
const recordsSql = `SELECT c.id, c.types, c.cryptosuite, c.format, c.offer_id, c.configuration_id,
       c.created_at,
       CASE
         WHEN bool_or(e.purpose = 'revocation'
                      AND get_bit(l.bits, (e.list_index / 8) * 8 + 7 - e.list_index % 8) = 1)
           THEN 'revoked'
         WHEN bool_or(e.purpose = 'suspension'
                      AND get_bit(l.bits, (e.list_index / 8) * 8 + 7 - e.list_index % 8) = 1)
           THEN 'suspended'
         ELSE 'active' END AS state,
       to_char(c.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS cursor_at,
       coalesce(json_agg(json_build_object(
         'statusPurpose', e.purpose, 'listId', e.list_id, 'statusListIndex', e.list_index,
         'set', get_bit(l.bits, (e.list_index / 8) * 8 + 7 - e.list_index % 8) = 1
       ) ORDER BY e.purpose) FILTER (WHERE e.list_id IS NOT NULL), '[]') AS status
  FROM issued_credential c
  LEFT JOIN credential_status_entry e ON e.tenant_id = c.tenant_id AND e.credential_id = c.id
  LEFT JOIN credential_status_list l ON l.id = e.list_id
 WHERE c.tenant_id = $1
   AND ($2::text IS NULL OR $2::text = ANY(c.types))
   AND ($4::text IS NULL OR c.id = $4::text)
   AND ($5::timestamptz IS NULL OR c.created_at < $5::timestamptz
        OR (c.created_at = $5::timestamptz AND c.id > $6::text))
 GROUP BY c.tenant_id, c.id
HAVING $3::text IS NULL OR $3::text = CASE
         WHEN bool_or(e.purpose = 'revocation'
                      AND get_bit(l.bits, (e.list_index / 8) * 8 + 7 - e.list_index % 8) = 1)
           THEN 'revoked'
         WHEN bool_or(e.purpose = 'suspension'
                      AND get_bit(l.bits, (e.list_index / 8) * 8 + 7 - e.list_index % 8) = 1)
           THEN 'suspended'
         ELSE 'active' END
 ORDER BY c.created_at DESC, c.id
 LIMIT $7 OFFSET $8`;

/** How many records of tenant $1 match type $2 and state $3 (null: any), as `recordsSql` filters. */
const countSql = `SELECT count(*)::int AS total FROM (
  SELECT c.id
    FROM issued_credential c
    LEFT JOIN credential_status_entry e ON e.tenant_id = c.tenant_id AND e.credential_id = c.id
    LEFT JOIN credential_status_list l ON l.id = e.list_id
   WHERE c.tenant_id = $1
     AND ($2::text IS NULL OR $2::text = ANY(c.types))
   GROUP BY c.tenant_id, c.id
  HAVING $3::text IS NULL OR $3::text = CASE
           WHEN bool_or(e.purpose = 'revocation'
                        AND get_bit(l.bits, (e.list_index / 8) * 8 + 7 - e.list_index % 8) = 1)
             THEN 'revoked'
           WHEN bool_or(e.purpose = 'suspension'
                        AND get_bit(l.bits, (e.list_index / 8) * 8 + 7 - e.list_index % 8) = 1)
             THEN 'suspended'
           ELSE 'active' END) matching`;

/** The issuance records of each tenant: written with the credential, read for listing. */
@Injectable()
export class IssuedCredentialRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The record's INSERT, for the issue statement (its status entries' parameters follow $8). */
  recordStatement(record: IssuanceRecord): RecordStatement {
    const { tenantId, id, types, cryptosuite, issuedBy } = record;
    return {
      sql: recordSql,
      parameters: [
        tenantId,
        id,
        types,
        cryptosuite,
        issuedBy,
        record.format ?? 'ldp_vc',
        record.offerId ?? null,
        record.configurationId ?? null,
      ],
    };
  }

  /** The format of a credential the tenant issued, or undefined when it issued none with that id. */
  async formatOf(tenantId: string, id: string): Promise<string | undefined> {
    const [row] = await this.dataSource.query<{ format: string }[]>(
      'SELECT format FROM issued_credential WHERE tenant_id = $1 AND id = $2',
      [tenantId, id],
    );
    return row?.format;
  }

  /** Whether the statement writing `recordStatement` failed on a credential id the tenant used. */
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
