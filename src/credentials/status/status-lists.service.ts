import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomInt, randomUUID } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { DataSource, type EntityManager } from 'typeorm';
import { APP_CONFIG } from '../../config/config.token.js';
import { type AppConfig } from '../../config/app-config.js';
import { DomainException } from '../../common/problem/domain.exception.js';
import { rowsOf } from '../../database/rows-of.js';
import { WebhookOutbox } from '../../webhooks/webhook-outbox.js';
import { DidService } from '../../did/did.service.js';
import { signCredential } from '../data-integrity.js';
import { DOCUMENT_LOADER } from '../document-loader.js';
import {
  entryBit,
  encodeList,
  entryBitSql,
  statusListLength,
  type StatusPurpose,
} from './bitstring.js';

/** What a credential carries for one purpose (Bitstring Status List §2.1). */
export interface StatusEntry {
  id: string;
  type: 'BitstringStatusListEntry';
  statusPurpose: StatusPurpose;
  statusListIndex: string;
  statusListCredential: string;
}

interface ListRow {
  purpose: StatusPurpose;
  bits: Buffer;
  version: number;
  updated_at: Date;
}

/** Room in the tenant's oldest open list of a purpose ($1, $2), its row locked until the commit. */
const takeRoomSql = `UPDATE credential_status_list SET allocated = allocated + 1
  WHERE id = (SELECT id FROM credential_status_list
               WHERE tenant_id = $1 AND purpose = $2 AND allocated < length
               ORDER BY created_at LIMIT 1 FOR UPDATE)
  RETURNING id`;

/** Tries of a random free index before the list is searched for one (only when it is nearly full). */
const randomTries = 32;

@Injectable()
export class StatusListsService {
  /** Signed public lists by id and version: a list is signed again only after it changed. */
  private readonly signed = new LRUCache<string, Record<string, unknown>>({ max: 256 });

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly dids: DidService,
    @Inject(DOCUMENT_LOADER) private readonly documentLoader: DocumentLoader,
    private readonly outbox: WebhookOutbox,
  ) {}

  listUrl(tenantId: string, listId: string): string {
    return `${this.config.publicBaseUrl}/ctrl/status-lists/${tenantId}/${listId}`;
  }

  /** The tenant and list a URL of ours names, or undefined for any other URL. */
  listOfUrl(url: string): { tenantId: string; listId: string } | undefined {
    const prefix = `${this.config.publicBaseUrl}/ctrl/status-lists/`;
    if (!url.startsWith(prefix)) return undefined;
    const match = /^([A-Za-z0-9][A-Za-z0-9_.-]{0,63})\/([0-9a-f-]{36})$/.exec(
      url.slice(prefix.length),
    );
    return match === null ? undefined : { tenantId: match[1], listId: match[2] };
  }

  /**
   * Gives the credential a random, never reused index in a list of each purpose, inside the caller's
   * transaction; the list row stays locked until it commits, so concurrent issues never collide.
   */
  async allocate(
    manager: EntityManager,
    tenantId: string,
    credentialId: string,
    purposes: StatusPurpose[],
  ): Promise<StatusEntry[]> {
    const entries: StatusEntry[] = [];
    for (const purpose of purposes) {
      // Usually one statement: room in an open list and a random index in it.
      const taken = await this.takeFromOpenList(manager, tenantId, credentialId, purpose);
      const listId = taken?.id ?? (await this.listWithRoom(manager, tenantId, purpose));
      const index =
        taken?.list_index ??
        (await this.freeIndex(manager, listId, tenantId, credentialId, purpose));
      const url = this.listUrl(tenantId, listId);
      entries.push({
        id: `${url}#${index}`,
        type: 'BitstringStatusListEntry',
        statusPurpose: purpose,
        statusListIndex: String(index),
        statusListCredential: url,
      });
    }
    return entries;
  }

  /**
   * Takes room in the tenant's oldest open list of the purpose (locking its row) and tries one random
   * index in it: undefined when no list has room, `list_index` null when the index was taken.
   */
  private async takeFromOpenList(
    manager: EntityManager,
    tenantId: string,
    credentialId: string,
    purpose: StatusPurpose,
  ): Promise<{ id: string; list_index: number | null } | undefined> {
    const [taken] = await manager.query<{ id: string; list_index: number | null }[]>(
      `WITH list AS (${takeRoomSql}),
       entry AS (
         INSERT INTO credential_status_entry (list_id, list_index, tenant_id, credential_id, purpose)
         SELECT id, $4, $1, $3, $2 FROM list
         ON CONFLICT (list_id, list_index) DO NOTHING RETURNING list_index)
       SELECT list.id, (SELECT list_index FROM entry) AS list_index FROM list`,
      [tenantId, purpose, credentialId, randomInt(statusListLength)],
    );
    return taken;
  }

  /**
   * Sets or clears the credential's bit of one purpose, and writes its event in the same statement;
   * false on revocation is refused.
   */
  async setStatus(
    tenantId: string,
    credentialId: string,
    purpose: StatusPurpose,
    status: boolean,
  ): Promise<void> {
    if (purpose === 'revocation' && !status) {
      throw new DomainException(
        'VALIDATION_FAILED',
        'A revocation is final: status must be true.',
        [{ field: 'status', message: 'must be true for revocation (a revocation is final)' }],
      );
    }
    const changed = await this.outbox.withChange(
      this.dataSource,
      {
        sql: `UPDATE credential_status_list l
                 SET bits = set_bit(l.bits, ${entryBitSql}, $4),
                     version = l.version + 1, updated_at = now()
                FROM credential_status_entry e
               WHERE e.tenant_id = $1 AND e.credential_id = $2 AND e.purpose = $3 AND l.id = e.list_id
              RETURNING e.list_index`,
        parameters: [tenantId, credentialId, purpose, status ? 1 : 0],
      },
      {
        type: 'credential.status.changed',
        tenantId,
        data: { tenantId, credentialId, statusPurpose: purpose, status },
      },
    );
    if (changed.length === 0) {
      throw new DomainException(
        'CREDENTIAL_NOT_FOUND',
        `The tenant issued no credential '${credentialId}' with a ${purpose} status entry.`,
      );
    }
  }

  /** The list as a BitstringStatusListCredential signed by the tenant's DID, with its version. */
  async publicList(
    tenantId: string,
    listId: string,
  ): Promise<{ credential: Record<string, unknown>; version: number }> {
    const list = await this.find(tenantId, listId);
    const key = `${listId}/${list.version}`;
    let credential = this.signed.get(key);
    if (credential === undefined) {
      const url = this.listUrl(tenantId, listId);
      const tenant = await this.dids.signerFor(tenantId);
      credential = await signCredential(
        {
          '@context': ['https://www.w3.org/ns/credentials/v2'],
          id: url,
          type: ['VerifiableCredential', 'BitstringStatusListCredential'],
          issuer: tenant.did,
          validFrom: list.updated_at.toISOString().replace(/\.\d{3}Z$/, 'Z'),
          credentialSubject: {
            id: `${url}#list`,
            type: 'BitstringStatusList',
            statusPurpose: list.purpose,
            encodedList: encodeList(list.bits),
          },
        },
        {
          signer: tenant.signer,
          cryptosuite: 'eddsa-rdfc-2022',
          date: new Date(),
          documentLoader: this.documentLoader,
        },
      );
      this.signed.set(key, credential);
    }
    return { credential, version: list.version };
  }

  /**
   * The bit of one of our lists, or a sentence saying why it cannot be read; the list must be the
   * issuer's, as a verifier elsewhere would check on the signed list.
   */
  async bitOf(
    tenantId: string,
    listId: string,
    statusListIndex: unknown,
    purpose: string,
    issuer: string | undefined,
  ): Promise<boolean | string> {
    const [list] = await this.dataSource.query<
      (Pick<ListRow, 'purpose' | 'bits'> & { did: string })[]
    >(
      `SELECT l.purpose, l.bits, d.did FROM credential_status_list l
         JOIN tenant_did d ON d.tenant_id = l.tenant_id
        WHERE l.id = $1 AND l.tenant_id = $2`,
      [listId, tenantId],
    );
    if (list === undefined) return 'the status list does not exist (its tenant may be deleted)';
    if (list.did !== issuer) {
      return `the status list is issued by '${list.did}', not by the credential's issuer`;
    }
    if (list.purpose !== purpose) return `the status list is for ${list.purpose}, not ${purpose}`;
    return entryBit(list.bits, statusListIndex);
  }

  private async find(tenantId: string, listId: string): Promise<ListRow> {
    const [list] = /^[0-9a-f-]{36}$/.test(listId)
      ? await this.dataSource.query<ListRow[]>(
          `SELECT purpose, bits, version, updated_at
             FROM credential_status_list WHERE id = $1 AND tenant_id = $2`,
          [listId, tenantId],
        )
      : [];
    if (list === undefined) {
      throw new DomainException('STATUS_LIST_NOT_FOUND', `No status list ${tenantId}/${listId}.`);
    }
    return list;
  }

  /** After takeFromOpenList found no room: waits its turn, then uses a list made meanwhile or makes one. */
  private async listWithRoom(
    manager: EntityManager,
    tenantId: string,
    purpose: StatusPurpose,
  ): Promise<string> {
    // One new list at a time per tenant and purpose: whoever waited here uses the list just made.
    await manager.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [
      `credential_status_list/${tenantId}/${purpose}`,
    ]);
    const [madeMeanwhile] = rowsOf<{ id: string }>(
      await manager.query(takeRoomSql, [tenantId, purpose]),
    );
    if (madeMeanwhile !== undefined) return madeMeanwhile.id;
    const id = randomUUID();
    await manager.query(
      `INSERT INTO credential_status_list (id, tenant_id, purpose, length, allocated, bits)
       VALUES ($1, $2, $3, $4, 1, $5)`,
      [id, tenantId, purpose, statusListLength, Buffer.alloc(statusListLength / 8)],
    );
    return id;
  }

  private async freeIndex(
    manager: EntityManager,
    listId: string,
    tenantId: string,
    credentialId: string,
    purpose: StatusPurpose,
  ): Promise<number> {
    const insert = (index: number) =>
      manager.query<unknown[]>(
        `INSERT INTO credential_status_entry (list_id, list_index, tenant_id, credential_id, purpose)
         VALUES ($1, $2, $3, $4, $5) ON CONFLICT (list_id, list_index) DO NOTHING RETURNING list_index`,
        [listId, index, tenantId, credentialId, purpose],
      );
    for (let attempt = 0; attempt < randomTries; attempt++) {
      const index = randomInt(statusListLength);
      if ((await insert(index)).length === 1) return index;
    }
    const [free] = await manager.query<{ i: number }[]>(
      `SELECT i FROM generate_series(0, $2 - 1) i
        WHERE NOT EXISTS (SELECT 1 FROM credential_status_entry WHERE list_id = $1 AND list_index = i)
        ORDER BY random() LIMIT 1`,
      [listId, statusListLength],
    );
    if (free === undefined || (await insert(free.i)).length !== 1) {
      throw new Error(`Status list ${listId} has no free index`);
    }
    return free.i;
  }
}
