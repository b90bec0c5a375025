import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { violates } from '../database/constraint-violation.js';
import { APP_CONFIG } from '../config/config.token.js';
import { type AppConfig } from '../config/app-config.js';
import { DomainException } from '../common/problem/domain.exception.js';
import { pageWindow, springPage } from '../common/page-query.js';
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
  status: { statusPurpose: string; listId: string; statusListIndex: number; set: boolean }[];
}

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

  /** Inside the issuing transaction; a credential id the tenant already used is 409. */
  async record(
    manager: EntityManager,
    tenantId: string,
    credential: { id: string; types: string[]; cryptosuite: string; issuedBy: string },
  ): Promise<void> {
    try {
      await manager.query(
        `INSERT INTO issued_credential (tenant_id, id, types, cryptosuite, issued_by)
         VALUES ($1, $2, $3, $4, $5)`,
        [tenantId, credential.id, credential.types, credential.cryptosuite, credential.issuedBy],
      );
    } catch (error) {
      if (violates(error, 'unique', 'issued_credential_pkey')) {
        throw new DomainException(
          'CREDENTIAL_ALREADY_EXISTS',
          `The tenant already issued a credential with id '${credential.id}'.`,
          [{ field: 'credential.id', message: 'is already taken by an issued credential' }],
        );
      }
      throw error;
    }
  }

  async list(tenantId: string, query: ListCredentialsQuery): Promise<IssuedCredentialPageDto> {
    const window = pageWindow(query);
    const rows = await this.select(tenantId, query, { limit: window.size, offset: window.offset });
    const [{ total }] = await this.dataSource.query<[{ total: number }]>(
      `SELECT count(*)::int AS total FROM (${this.selectSql(query)}) matching`,
      this.parameters(tenantId, query),
    );
    return springPage(rows, window, total);
  }

  async get(tenantId: string, id: string): Promise<IssuedCredentialRecordDto> {
    const [record] = await this.select(tenantId, {}, { limit: 1, offset: 0, id });
    if (record === undefined) {
      throw new DomainException('CREDENTIAL_NOT_FOUND', `The tenant issued no credential '${id}'.`);
    }
    return record;
  }

  private async select(
    tenantId: string,
    query: ListCredentialsQuery,
    window: { limit: number; offset: number; id?: string },
  ): Promise<IssuedCredentialRecordDto[]> {
    const parameters = this.parameters(tenantId, query, window.id);
    const rows = await this.dataSource.query<(RecordRow & { state: CredentialState })[]>(
      `${this.selectSql(query, window.id !== undefined)}
       ORDER BY c.created_at DESC, c.id LIMIT ${window.limit} OFFSET ${window.offset}`,
      parameters,
    );
    return rows.map((row) => ({
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
    }));
  }

  /** $1 the tenant, then the filters in order: type, status, id. */
  private selectSql(query: ListCredentialsQuery, byId = false): string {
    let next = 2;
    const where = ['c.tenant_id = $1'];
    if (query.type !== undefined) where.push(`$${next++} = ANY(c.types)`);
    const having = query.status === undefined ? '' : `HAVING ${stateSql} = $${next++}`;
    if (byId) where.push(`c.id = $${next}`);
    return `SELECT c.id, c.types, c.cryptosuite, c.created_at, ${stateSql} AS state,
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
