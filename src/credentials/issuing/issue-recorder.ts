import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { type DataSource, type EntityManager } from 'typeorm';
import { DomainException } from '../../common/problem/domain.exception.js';
import { DidService, type StoredDidKey } from '../../did/did.service.js';
import { type DomainEvent, EventOutbox } from '../../events/event-outbox.js';
import { type StatusPurpose } from '../status/bitstring.js';
import { StatusIndexAllocator, type StatusEntry } from '../status/status-index-allocator.js';
import { IssuedCredentialRepository } from './issued-credential.repository.js';
import { isIssuer } from './issue-request-checks.js';
import { recordIssueValuesOf, type RecordIssueValues, type TakenOnIssue } from './record-issue.js';

/** What the issuance record and its event say: never the credential's claims. */
export interface Issuance {
  tenantId: string;
  credentialId: string;
  types: string[];
  /** The Data Integrity cryptosuite, or the JOSE `alg` of an SD-JWT VC. */
  cryptosuite: string;
  issuedBy: string;
  purposes: StatusPurpose[];
  /** `ldp_vc` when absent. */
  format?: 'ldp_vc' | 'dc+sd-jwt' | 'mso_mdoc';
  /** The OpenID4VCI offer and credential configuration it was issued for. */
  origin?: { offerId: string; configurationId: string };
}

/** What `IssueRecorder.record` wrote and read: the status entries and the key that signs. */
export interface Recorded {
  entries: StatusEntry[];
  /** Undefined, nothing written: no such tenant, or its DID is not the issuer the credential names. */
  key: StoredDidKey | undefined;
}

/** An issue ready for a statement that calls `record_issue`: its values wait for the event's row. */
export interface PreparedIssue {
  issuance: Issuance;
  event: DomainEvent;
  values: (eventRow: string) => RecordIssueValues;
}

/**
 * Every issue path's write: the issuance record, its credential.issued event and, the usual way, its
 * status entries, in one statement (`record_issue`, of the caller's transaction or of the credential
 * endpoint's own statement); an entry that statement could not take is taken the slow way after it
 * (docs/performance.md).
 */
@Injectable()
export class IssueRecorder {
  constructor(
    private readonly records: IssuedCredentialRepository,
    private readonly statusIndices: StatusIndexAllocator,
    private readonly outbox: EventOutbox,
    private readonly dids: DidService,
    @InjectDataSource() private readonly dataSource: DataSource,
  ) {}

  /**
   * The API's issue: its record, event and entries written in the caller's transaction, and the
   * tenant's DID key read in the same round trip; only when the tenant exists and its DID is `issuer`,
   * the DID the credential names (null: any).
   */
  async record(
    manager: EntityManager,
    issuance: Issuance,
    issuer: string | null,
  ): Promise<Recorded> {
    const prepared = this.prepare(issuance);
    if (issuance.purposes.length === 0) {
      // Without entries the record alone, the key read first: planning the entries' part cost more.
      const key = await this.dids.didKeyOf(issuance.tenantId, manager);
      if (key === undefined || !isIssuer(issuer, key.did)) {
        return { entries: [], key: undefined };
      }
      await this.duplicateChecked(issuance, () =>
        this.outbox.withChange(
          manager,
          this.records.recordChange(recordOf(issuance)),
          prepared.event,
        ),
      );
      return { entries: [], key };
    }
    const [row] = await this.duplicateChecked(issuance, () =>
      this.inStatement([prepared], ([values]) =>
        this.records.issue(manager, { ...values, issuer }),
      ),
    );
    if (row === undefined) return { entries: [], key: undefined };
    const { taken, ...key } = row;
    const entries = await this.statusIndices.complete(
      manager,
      issuance.tenantId,
      issuance.credentialId,
      issuance.purposes,
      takenEntries(issuance, taken),
    );
    return { entries, key };
  }

  /** The issuance as `record_issue` values and its event, for a statement that records it. */
  prepare(issuance: Issuance): PreparedIssue {
    const { tenantId, credentialId, types, cryptosuite, purposes, origin } = issuance;
    const data =
      origin === undefined
        ? { tenantId, credentialId, types, cryptosuite, statusPurposes: purposes }
        : {
            tenantId,
            credentialId,
            format: issuance.format ?? 'ldp_vc',
            configurationId: origin.configurationId,
            offerId: origin.offerId,
            types,
            cryptosuite,
            statusPurposes: purposes,
          };
    const event = { type: 'credential.issued' as const, tenantId, data };
    const takes = purposes.map((purpose) => ({
      purpose,
      candidates: this.statusIndices.randomCandidates(),
    }));
    return {
      issuance,
      event,
      values: (eventRow) =>
        recordIssueValuesOf({ record: recordOf(issuance), takes, event: eventRow }),
    };
  }

  /**
   * Runs `statement` with the values of each prepared issue, their events' rows in them: the events
   * count as written when the statement answered a row (`EventOutbox.inStatement`).
   */
  inStatement<Row>(
    prepared: readonly PreparedIssue[],
    statement: (values: RecordIssueValues[]) => Promise<Row[]>,
    rows: string[] = [],
  ): Promise<Row[]> {
    if (rows.length === prepared.length) {
      return statement(prepared.map((issue, n) => issue.values(rows[n])));
    }
    return this.outbox.inStatement(prepared[rows.length].event, (row) =>
      this.inStatement(prepared, statement, [...rows, row]),
    );
  }

  /**
   * The status entries of an issue whose statement committed (the credential endpoint's): those it
   * took, the rest taken the slow way in a transaction of their own.
   */
  entriesAfter(prepared: PreparedIssue, taken: TakenOnIssue | null): Promise<StatusEntry[]> {
    const { tenantId, credentialId, purposes } = prepared.issuance;
    const entries = takenEntries(prepared.issuance, taken);
    const complete = (manager: EntityManager) =>
      this.statusIndices.complete(manager, tenantId, credentialId, purposes, entries);
    // Everything taken: nothing is read or written, so no transaction is opened.
    return entries.every((entry) => entry !== null)
      ? complete(this.dataSource.manager)
      : this.dataSource.transaction(complete);
  }

  private async duplicateChecked<T>(issuance: Issuance, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      throw this.duplicateOf(error, issuance.credentialId) ?? error;
    }
  }

  /**
   * A credential id the tenant already used, as the issue statement failed with it: 409. Its record's
   * key, or that of a status entry of it, whichever the statement wrote first.
   */
  private duplicateOf(error: unknown, id: string): DomainException | undefined {
    if (!this.records.isDuplicate(error)) return undefined;
    return new DomainException(
      'CREDENTIAL_ALREADY_EXISTS',
      `The tenant already issued a credential with id '${id}'.`,
      [{ field: 'credential.id', message: 'is already taken by an issued credential' }],
    );
  }
}

/** The record of an issuance: never its claims. */
function recordOf(issuance: Issuance) {
  const { tenantId, credentialId, types, cryptosuite, issuedBy, origin } = issuance;
  return {
    tenantId,
    id: credentialId,
    types,
    cryptosuite,
    issuedBy,
    format: issuance.format,
    offerId: origin?.offerId,
    configurationId: origin?.configurationId,
  };
}

/** What the statement took for each purpose, in order; null where it took nothing. */
function takenEntries(issuance: Issuance, taken: TakenOnIssue | null) {
  return issuance.purposes.map((purpose) => taken?.[purpose] ?? null);
}
