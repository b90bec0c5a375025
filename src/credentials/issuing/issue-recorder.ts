import { Injectable } from '@nestjs/common';
import { type EntityManager } from 'typeorm';
import { DomainException } from '../../common/problem/domain.exception.js';
import { EventOutbox } from '../../events/event-outbox.js';
import { type StatusPurpose } from '../status/bitstring.js';
import { StatusIndexAllocator, type StatusEntry } from '../status/status-index-allocator.js';
import { IssuedCredentialRepository, type IssuedRow } from './issued-credential.repository.js';

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
  format?: 'ldp_vc' | 'dc+sd-jwt';
  /** The OpenID4VCI offer and credential configuration it was issued for. */
  origin?: { offerId: string; configurationId: string };
}

/**
 * Every issue path's write: the issuance record, its credential.issued event and, the usual way, its
 * status entries, in one statement of the caller's transaction; an entry that statement could not take
 * is taken the slow way after it (docs/performance.md).
 */
@Injectable()
export class IssueRecorder {
  constructor(
    private readonly records: IssuedCredentialRepository,
    private readonly statusIndices: StatusIndexAllocator,
    private readonly outbox: EventOutbox,
  ) {}

  async record(manager: EntityManager, issuance: Issuance): Promise<StatusEntry[]> {
    const { tenantId, credentialId, types, cryptosuite, issuedBy, purposes, origin } = issuance;
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
    const record = {
      tenantId,
      id: credentialId,
      types,
      cryptosuite,
      issuedBy,
      format: issuance.format,
      offerId: origin?.offerId,
      configurationId: origin?.configurationId,
    };
    const event = { type: 'credential.issued' as const, tenantId, data };
    let rows: IssuedRow[];
    try {
      // One statement, one round trip: the issue path's budget (docs/performance.md).
      if (purposes.length === 0) {
        await this.outbox.withChange(manager, this.records.recordChange(record), event);
        return [];
      }
      rows = await this.outbox.inStatement(event, (eventRow) =>
        this.records.issue(manager, {
          record,
          takes: purposes.map((purpose) => ({
            purpose,
            candidates: this.statusIndices.randomCandidates(),
          })),
          event: eventRow,
        }),
      );
    } catch (error) {
      throw this.duplicateOf(error, credentialId) ?? error;
    }
    const taken = rows[0]?.taken ?? {};
    const entries = purposes.map((purpose) => taken[purpose] ?? null);
    return this.statusIndices.complete(manager, tenantId, credentialId, purposes, entries);
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
