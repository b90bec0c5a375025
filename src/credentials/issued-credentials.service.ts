import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { violates } from '../database/constraint-violation.js';
import { APP_CONFIG } from '../config/config.token.js';
import { type AppConfig } from '../config/app-config.js';
import { DomainException } from '../common/problem/domain.exception.js';
import {
  afterCursorSql,
  cursorPage,
  cursorTimeSql,
  cursorWindow,
  type Cursor,
} from '../common/cursor-page.js';
import { entryBitSql } from './status/bitstring.js';
import {
  type CredentialState,
  type IssuedCredentialPageDto,
  type IssuedCredentialRecordDto,
  type ListCredentialsQuery,
} from './dto/issued-credentials.dto.js';

interface RecordRow {
  id: string;
  types: string[];
  cryptosuite: string;
  created_at: Date;
  cursor_at: string;
  status: { statusPurpose: string; listId: string; statusListIndex: number; set: boolean }[];
}

/** The keys a credential id the tenant already used breaks. */
const duplicateConstraints = ['issued_credential_pkey', 'credential_status_entry_credential_idx'];

/** A credential id as a cursor may hold it: a URL, so printable and without spaces (never NUL). */
const credentialIdPattern = /^[!-~\u00a0-\uffff]{1,2048}$/;

/** A credential's state from its entries' bits: revoked wins over suspended. */
const entrySetSql = `get_bit(l.bits, ${entryBitSql}) = 1`;
const stateSql = `CASE
  WHEN bool_or(e.purpose = 'revocation' AND ${entrySetSql}) THEN 'revoked'
  WHEN bool_or(e.purpose = 'suspension' AND ${entrySetSql}) THEN 'suspended'
  ELSE 'active' END`;

/** The issuance records of each tenant: written with the credential, read for listing. */
@Injectable()
export class IssuedCredentialsService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** The record's INSERT, its parameters numbered from `$first`, for a statement of the caller's. */
  recordSql(
    tenantId: string,
    credential: { id: string; types: string[]; cryptosuite: string; issuedBy: string },
    first: number,
  ): { sql: string; parameters: unknown[] } {
    const [tenant, id, types, cryptosuite, issuedBy] = [0, 1, 2, 3, 4].map((n) => `$${first + n}`);
    return {
      sql: `INSERT INTO issued_credential (tenant_id, id, types, cryptosuite, issued_by)
            VALUES (${tenant}, ${id}, ${types}::text[], ${cryptosuite}, ${issuedBy}) RETURNING id`,
      parameters: [
        tenantId,
        credential.id,
        credential.types,
        credential.cryptosuite,
        credential.issuedBy,
      ],
    };
  }

  /**
   * A credential id the tenant already used, as the statement writing `recordSql` failed with it: 409.
   * Its record's key, or that of a status entry of it, whichever the statement wrote first.
   */
  duplicateOf(error: unknown, id: string): DomainException | undefined {
    if (duplicateConstraints.some((constraint) => violates(error, 'unique', constraint))) {
      return new DomainException(
        'CREDENTIAL_ALREADY_EXISTS',
        `The tenant already issued a credential with id '${id}'.`,
        [{ field: 'credential.id', message: 'is already taken by an issued credential' }],
      );
    }
    return undefined;
  }

  /** Newest first, by page number or after a cursor (docs/api.md, Pages); one more row tells if more follow. */
  async list(tenantId: string, query: ListCredentialsQuery): Promise<IssuedCredentialPageDto> {
    const window = cursorWindow(query, credentialIdPattern);
    const rows = await this.select(tenantId, query, {
      limit: window.size + 1,
      offset: window.offset,
      after: window.after,
    });
    const content = rows.slice(0, window.size);
    const total =
      window.after === undefined
        ? (
            await this.dataSource.query<[{ total: number }]>(
              `SELECT count(*)::int AS total FROM (${this.selectSql(query)}) matching`,
              this.parameters(tenantId, query),
            )
          )[0].total
        : undefined;
    const last = content.at(-1);
    return cursorPage(
      content.map((row) => row.record),
      window,
      total,
      last?.cursor,
      rows.length > window.size,
    );
  }

  async get(tenantId: string, id: string): Promise<IssuedCredentialRecordDto> {
    const [found] = await this.select(tenantId, {}, { limit: 1, offset: 0, id });
    if (found === undefined) {
      throw new DomainException('CREDENTIAL_NOT_FOUND', `The tenant issued no credential '${id}'.`);
    }
    return found.record;
  }

  private async select(
    tenantId: string,
    query: ListCredentialsQuery,
    window: { limit: number; offset: number; id?: string; after?: Cursor },
  ): Promise<{ record: IssuedCredentialRecordDto; cursor: Cursor }[]> {
    const parameters = [
      ...this.parameters(tenantId, query, window.id),
      ...(window.after === undefined ? [] : [window.after.at, window.after.id]),
    ];
    const rows = await this.dataSource.query<(RecordRow & { state: CredentialState })[]>(
      `${this.selectSql(query, window.id !== undefined, window.after !== undefined)}
       ORDER BY c.created_at DESC, c.id LIMIT ${window.limit} OFFSET ${window.offset}`,
      parameters,
    );
    return rows.map((row) => ({
      cursor: { at: row.cursor_at, id: row.id },
      record: {
        id: row.id,
        types: row.types,
        cryptosuite: row.cryptosuite,
        issuedAt: row.created_at.toISOString(),
        state: row.state,
        status: row.status.map((entry) => ({
          statusPurpose: entry.statusPurpose,
          statusListCredential: `${this.config.publicBaseUrl}/ctrl/status-lists/${tenantId}/${entry.listId}`,
          statusListIndex: String(entry.statusListIndex),
          set: entry.set,
        })),
      },
    }));
  }

  /** $1 the tenant, then the filters in order: type, status, id, then the cursor's time and id. */
  private selectSql(query: ListCredentialsQuery, byId = false, afterCursor = false): string {
    let next = 2;
    const where = ['c.tenant_id = $1'];
    if (query.type !== undefined) where.push(`$${next++} = ANY(c.types)`);
    const having = query.status === undefined ? '' : `HAVING ${stateSql} = $${next++}`;
    if (byId) where.push(`c.id = $${next++}`);
    if (afterCursor) {
      where.push(afterCursorSql('c.created_at', 'c.id', `$${next}`, `$${next + 1}`));
    }
    return `SELECT c.id, c.types, c.cryptosuite, c.created_at, ${stateSql} AS state,
              ${cursorTimeSql('c.created_at')} AS cursor_at,
              coalesce(json_agg(json_build_object(
                'statusPurpose', e.purpose, 'listId', e.list_id, 'statusListIndex', e.list_index,
                'set', ${entrySetSql}
              ) ORDER BY e.purpose) FILTER (WHERE e.list_id IS NOT NULL), '[]') AS status
         FROM issued_credential c
         LEFT JOIN credential_status_entry e ON e.tenant_id = c.tenant_id AND e.credential_id = c.id
         LEFT JOIN credential_status_list l ON l.id = e.list_id
        WHERE ${where.join(' AND ')}
        GROUP BY c.tenant_id, c.id ${having}`;
  }

  private parameters(tenantId: string, query: ListCredentialsQuery, id?: string): unknown[] {
    return [
      tenantId,
      ...(query.type === undefined ? [] : [query.type]),
      ...(query.status === undefined ? [] : [query.status]),
      ...(id === undefined ? [] : [id]),
    ];
  }
}
