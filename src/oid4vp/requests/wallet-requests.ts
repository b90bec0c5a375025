import { Inject, Injectable } from '@nestjs/common';
import { type EntityManager } from 'typeorm';
import { CLOCK, type Clock } from '../../common/clock.js';
import { type TenantTrust } from '../../credentials/verifying/tenant-trust.js';
import { type ChangeStatement } from '../../events/event-outbox.js';
import { KeyVault } from '../../secrets/key-vault.js';
import { referenceHashOf, referencePattern } from '../verifier-urls.js';
import {
  isDcApiMode,
  type PresentationRequestEntity,
  type PresentedCredentialSummary,
  type ResponseMode,
} from './presentation-request.entity.js';
import {
  PresentationRequestRepository,
  type Conclusion,
} from './presentation-request.repository.js';
import { openSecrets, type RequestSecrets } from './presentation-request.sealed-columns.js';

export type { Conclusion, PresentationRequestEntity, PresentedCredentialSummary, ResponseMode };

/** A pending request in its time, with its opened secrets. */
export interface OpenRequest {
  request: PresentationRequestEntity;
  secrets: RequestSecrets;
}

/**
 * The requests as the wallet's endpoints (src/oid4vp/wallet/) reach them: the one a `request_uri` or
 * `response_uri` names, a refused answer counted, the one answer concluded. The requests folder owns
 * the table; each step is exactly the repository's one statement, the transactional ones in the
 * caller's manager.
 */
@Injectable()
export class WalletRequests {
  constructor(
    private readonly repository: PresentationRequestRepository,
    @Inject(KeyVault) private readonly vault: KeyVault,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /**
   * The tenant's request by its reference when it is pending and in time, else undefined: the
   * endpoints do not say which (an unknown reference, another tenant's, an answered or expired one).
   */
  async findOpen(tenantId: string, reference: string): Promise<OpenRequest | undefined> {
    // Only something shaped like a reference is looked for.
    if (!referencePattern.test(reference)) return undefined;
    const request = await this.repository.findByReference(tenantId, referenceHashOf(reference));
    return request === null ? undefined : this.openOf(request, reference);
  }

  /** The open request an answer names, with its tenant's trust read in the same round trip. */
  async findOpenToAnswer(
    tenantId: string,
    reference: string,
  ): Promise<(OpenRequest & { trust: TenantTrust }) | undefined> {
    if (!referencePattern.test(reference)) return undefined;
    const found = await this.repository.findByReferenceWithTrust(
      tenantId,
      referenceHashOf(reference),
    );
    if (found === null) return undefined;
    const open = this.openOf(found.request, reference);
    return open === undefined ? undefined : { ...open, trust: found.trust };
  }

  private openOf(request: PresentationRequestEntity, reference: string): OpenRequest | undefined {
    if (request.status !== 'pending') return undefined;
    // A DC API request is answered through the browser, never at a request_uri (appendix A).
    if (isDcApiMode(request.responseMode)) return undefined;
    if (request.expiresAt.getTime() <= this.clock()) return undefined;
    const secrets = this.secretsOf(request);
    // The hash matched; the sealed reference must too, so a row's box never answers for another's.
    if (secrets.reference !== reference) return undefined;
    return { request, secrets };
  }

  /** The tenant's request by its id, whatever its state (the DC API's answers name it), or null. */
  findById(tenantId: string, id: string): Promise<PresentationRequestEntity | null> {
    return this.repository.findById(tenantId, id);
  }

  /** The request's sealed reference and response key, opened. */
  secretsOf(request: PresentationRequestEntity): RequestSecrets {
    return openSecrets(this.vault, request);
  }

  now(): Date {
    return new Date(this.clock());
  }

  /**
   * Counts one refused answer of a pending request in time, in the caller's transaction: the count so
   * far, or undefined when the request is no longer open.
   */
  countRefusal(
    manager: EntityManager,
    tenantId: string,
    id: string,
    now: Date,
  ): Promise<number | undefined> {
    return this.repository.countRefusal(manager, tenantId, id, now);
  }

  /** Ends a pending request with the wallet's one answer, for `EventOutbox.withChange`. */
  concludeStatement(
    tenantId: string,
    id: string,
    conclusion: Conclusion,
    now: Date,
  ): ChangeStatement {
    return this.repository.concludeStatement(tenantId, id, conclusion, now);
  }
}
