import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { type StatusPurpose } from './bitstring.js';

/** A list as its public, signed form needs it. */
export interface ListRow {
  purpose: StatusPurpose;
  bits: Buffer;
  version: number;
  updated_at: Date;
}

/** A statement for `EventOutbox.withChange`, typed. */
export interface StatusChange {
  sql: string;
  parameters: [string, string, StatusPurpose, 0 | 1];
}

const markFilledSql = `UPDATE credential_status_list SET filled_at = now()
  WHERE id = $1 AND filled_at IS NULL`;

const openListSql = `SELECT id FROM credential_status_list
  WHERE tenant_id = $1 AND purpose = $2 AND filled_at IS NULL`;

/** A concurrent maker's insert waits for the other's commit (the unique open-list index), then skips. */
const makeListSql = `INSERT INTO credential_status_list (id, tenant_id, purpose, length, bits)
  VALUES ($1, $2, $3, $4, $5)
  ON CONFLICT (tenant_id, purpose) WHERE filled_at IS NULL DO NOTHING RETURNING id`;

/*
 * Sets ($4 = 1) or clears the bit of credential $2's entry of purpose $3 (tenant $1). PostgreSQL's
 * set_bit counts a byte's bits from the least significant, the list from the most (§2.1).
 */
const setStatusSql = `UPDATE credential_status_list l
     SET bits = set_bit(l.bits, (e.list_index / 8) * 8 + 7 - e.list_index % 8, $4),
         version = l.version + 1, updated_at = now()
    FROM credential_status_entry e
   WHERE e.tenant_id = $1 AND e.credential_id = $2 AND e.purpose = $3 AND l.id = e.list_id
  RETURNING e.list_index`;

const findListSql = `SELECT purpose, bits, version, updated_at
  FROM credential_status_list WHERE id = $1 AND tenant_id = $2`;

/** The list's purpose, length in bytes, and the one byte at $3 (null past the end): not the list. */
const listByteSql = `SELECT purpose, octet_length(bits) AS length,
    CASE WHEN $3 < octet_length(bits) THEN get_byte(bits, $3) END AS byte
  FROM credential_status_list WHERE id = $1 AND tenant_id = $2`;

/** The tenants' Bitstring Status Lists: one open list per tenant and purpose takes new entries. */
@Injectable()
export class StatusListRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Issues stop picking in the list; a concurrent marker waits, then skips. */
  async markFilled(manager: EntityManager, listId: string): Promise<void> {
    await manager.query(markFilledSql, [listId]);
  }

  /** The id of the tenant's open list of the purpose, if there is one. */
  async openList(
    manager: EntityManager,
    tenantId: string,
    purpose: StatusPurpose,
  ): Promise<string | undefined> {
    const [open] = await manager.query<{ id: string }[]>(openListSql, [tenantId, purpose]);
    return open?.id;
  }

  /** Makes an open list, all bits clear; undefined when a concurrent one was made first. */
  async makeList(
    manager: EntityManager,
    list: { id: string; tenantId: string; purpose: StatusPurpose; length: number },
  ): Promise<string | undefined> {
    const [made] = await manager.query<{ id: string }[]>(makeListSql, [
      list.id,
      list.tenantId,
      list.purpose,
      list.length,
      Buffer.alloc(list.length / 8),
    ]);
    return made?.id;
  }

  /** The bit change of a credential's entry, for `EventOutbox.withChange`; a row per entry changed. */
  statusChange(
    tenantId: string,
    credentialId: string,
    purpose: StatusPurpose,
    status: boolean,
  ): StatusChange {
    return { sql: setStatusSql, parameters: [tenantId, credentialId, purpose, status ? 1 : 0] };
  }

  async find(tenantId: string, listId: string): Promise<ListRow | undefined> {
    const [list] = await this.dataSource.query<ListRow[]>(findListSql, [listId, tenantId]);
    return list;
  }

  /** The list's purpose, its length in bytes and its byte at `byteIndex` (null past the end). */
  async byteOf(
    tenantId: string,
    listId: string,
    byteIndex: number,
  ): Promise<{ purpose: StatusPurpose; length: number; byte: number | null } | undefined> {
    const [list] = await this.dataSource.query<
      { purpose: StatusPurpose; length: number; byte: number | null }[]
    >(listByteSql, [listId, tenantId, Math.min(byteIndex, 2 ** 31 - 1)]);
    return list;
  }
}
