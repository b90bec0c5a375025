import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { LRUCache } from 'lru-cache';
import { DataSource } from 'typeorm';
import { CertificatesService } from '../../certificates/certificates.service.js';
import { CLOCK, type Clock } from '../../common/clock.js';
import { uuidPattern } from '../../common/cursor-page.js';
import { Settings } from '../../config/settings.js';
import { DomainException } from '../../common/problem/domain.exception.js';
import { EventOutbox } from '../../events/event-outbox.js';
import { Metrics } from '../../observability/metrics.js';
import { DidService } from '../../did/did.service.js';
import { TenantKeys } from '../../did/tenant-keys.service.js';
import { statusListToken } from './status-list-token.js';
import { credentialIssuerId } from '../../tenancy/credential-issuer.js';
import { signCredential } from '../data-integrity.js';
import { DOCUMENT_LOADER } from '../document-loader.js';
import {
  bitOfByte,
  entryBit,
  entryByteIndex,
  encodeList,
  type StatusPurpose,
} from './bitstring.js';
import { StatusListRepository, type ListRow } from './status-list.repository.js';
import { pastTheEnd } from './token-status-list.js';

/** A tenant's DID its caller already read: that tenant's lists are then read without it. */
export interface KnownDid {
  tenantId: string;
  did: string;
}

@Injectable()
export class StatusListsService {
  /** Signed public lists by id and version: a list is signed again only after it changed. */
  private readonly signed = new LRUCache<string, Record<string, unknown>>({ max: 256 });
  /**
   * Status List Tokens by list id and version, with when they were signed and the leaf of their x5c:
   * signed again after a change, an hour, or another certificate.
   */
  private readonly tokens = new LRUCache<
    string,
    { token: string; iat: number; leaf: string | undefined }
  >({ max: 256 });
  /** Lists' issuer DIDs by list id: list ids are never reused, a tenant's DID never changes. */
  private readonly issuers = new LRUCache<string, string>({ max: 1024 });

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly repository: StatusListRepository,
    private readonly settings: Settings,
    private readonly dids: DidService,
    private readonly keys: TenantKeys,
    private readonly certificates: CertificatesService,
    @Inject(DOCUMENT_LOADER) private readonly documentLoader: DocumentLoader,
    private readonly outbox: EventOutbox,
    private readonly metrics: Metrics,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  listUrl(tenantId: string, listId: string): string {
    return `${this.settings.PUBLIC_BASE_URL}/ctrl/status-lists/${tenantId}/${listId}`;
  }

  /** The tenant and list a URL of ours names, or undefined for any other URL. */
  listOfUrl(url: string): { tenantId: string; listId: string } | undefined {
    const prefix = `${this.settings.PUBLIC_BASE_URL}/ctrl/status-lists/`;
    if (!url.startsWith(prefix)) return undefined;
    const match = /^([A-Za-z0-9][A-Za-z0-9_.-]{0,63})\/([0-9a-f-]{36})$/.exec(
      url.slice(prefix.length),
    );
    return match === null ? undefined : { tenantId: match[1], listId: match[2] };
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
    // The bit and its event in one statement: atomic without a transaction of its own.
    const changed = await this.outbox.withChange(
      this.dataSource,
      this.repository.statusChange(tenantId, credentialId, purpose, status),
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
    this.metrics.credentialStatusChanges.inc({
      change: purpose === 'revocation' ? 'revoked' : status ? 'suspended' : 'unsuspended',
    });
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
          date: new Date(this.clock()),
          documentLoader: this.documentLoader,
        },
      );
      this.signed.set(key, credential);
    }
    return { credential, version: list.version };
  }

  /**
   * A revocation list as a Status List Token (draft-ietf-oauth-status-list §5.1) signed with the
   * tenant's ES256 key, with its x5c when it has a certificate (HAIP 1.0), and its version. A
   * suspension list has none: its bit would read INVALID.
   */
  async tokenList(tenantId: string, listId: string): Promise<{ token: string; version: number }> {
    const list = await this.find(tenantId, listId);
    if (list.purpose !== 'revocation') {
      throw new DomainException(
        'STATUS_LIST_NOT_FOUND',
        `No Status List Token for ${tenantId}/${listId}: only revocation lists have one.`,
      );
    }
    const cacheKey = `${listId}/${list.version}`;
    const now = Math.floor(this.clock() / 1000);
    // Read each time (one indexed row, no parsing): a superseded certificate leaves the next token.
    const x5c = await this.certificates.activeChain(tenantId);
    let cached = this.tokens.get(cacheKey);
    if (cached === undefined || now - cached.iat > 3600 || cached.leaf !== x5c?.[0]) {
      const key = await this.keys.es256SigningKey(tenantId);
      const token = await statusListToken(
        {
          issuer: credentialIssuerId(this.settings.PUBLIC_BASE_URL, tenantId),
          uri: this.tokenUrl(tenantId, listId),
          bits: list.bits,
          iat: now,
        },
        x5c === undefined ? key : { ...key, x5c },
      );
      cached = { token, iat: now, leaf: x5c?.[0] };
      this.tokens.set(cacheKey, cached);
    }
    return { token: cached.token, version: list.version };
  }

  /** Where a list's Status List Token is served: the `uri` of an SD-JWT VC's status entry. */
  tokenUrl(tenantId: string, listId: string): string {
    return `${this.listUrl(tenantId, listId)}/token`;
  }

  /**
   * What one of our revocation lists' Status List Token would say at `idx` (1 revoked, or past the
   * end) and its `iss`, read from the row's one byte at each call: a revocation made on any instance
   * shows at once, and no token is signed or verified. Undefined: the list has no token.
   */
  async tokenStatusOf(
    tenantId: string,
    listId: string,
    idx: number,
  ): Promise<{ issuer: string; status: number | string } | undefined> {
    const list = uuidPattern.test(listId)
      ? await this.repository.byteOf(tenantId, listId, Math.floor(idx / 8))
      : undefined;
    if (list === undefined || list.purpose !== 'revocation') return undefined;
    const status =
      list.byte === null ? pastTheEnd(idx, list.length * 8) : Number(bitOfByte(list.byte, idx));
    return { issuer: credentialIssuerId(this.settings.PUBLIC_BASE_URL, tenantId), status };
  }

  /**
   * The bit of one of our lists, or a sentence saying why it cannot be read; the list must be the
   * issuer's, as a verifier elsewhere would check on the signed list. `known`, the verifying tenant's
   * DID, spares reading it; another tenant's is read beside the list the first time.
   */
  async bitOf(
    tenantId: string,
    listId: string,
    statusListIndex: unknown,
    purpose: string,
    issuer: string | undefined,
    known?: KnownDid,
  ): Promise<boolean | string> {
    const did = known?.tenantId === tenantId ? known.did : this.issuers.get(listId);
    // The one byte that holds the bit, not the list: a verification reads a few bytes, not 16 kB.
    const [list, listIssuer] = await Promise.all([
      this.repository.byteOf(tenantId, listId, entryByteIndex(statusListIndex)),
      did ?? this.didOf(tenantId),
    ]);
    if (list === undefined || listIssuer === undefined) {
      return 'the status list does not exist (its tenant may be deleted)';
    }
    this.issuers.set(listId, listIssuer);
    if (listIssuer !== issuer) {
      return `the status list is issued by '${listIssuer}', not by the credential's issuer`;
    }
    if (list.purpose !== purpose) return `the status list is for ${list.purpose}, not ${purpose}`;
    return entryBit(list, statusListIndex);
  }

  /** The tenant's DID, or undefined once the tenant is deleted. */
  private async didOf(tenantId: string): Promise<string | undefined> {
    return (await this.dids.didsOf([tenantId])).get(tenantId);
  }

  private async find(tenantId: string, listId: string): Promise<ListRow> {
    const list = /^[0-9a-f-]{36}$/.test(listId)
      ? await this.repository.find(tenantId, listId)
      : undefined;
    if (list === undefined) {
      throw new DomainException('STATUS_LIST_NOT_FOUND', `No status list ${tenantId}/${listId}.`);
    }
    return list;
  }
}
