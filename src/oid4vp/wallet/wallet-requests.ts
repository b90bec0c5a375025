import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, type Clock } from '../../common/clock.js';
import { KeyVault } from '../../secrets/key-vault.js';
import { type PresentationRequestEntity } from '../requests/presentation-request.entity.js';
import { PresentationRequestRepository } from '../requests/presentation-request.repository.js';
import {
  requestSecretsPurpose,
  type RequestSecrets,
} from '../requests/presentation-request.sealed-columns.js';
import { referenceHashOf, referencePattern } from '../verifier-urls.js';

/** A pending request in its time, with its opened secrets. */
export interface OpenRequest {
  request: PresentationRequestEntity;
  secrets: RequestSecrets;
}

/** How the wallet endpoints find the request a `request_uri` or `response_uri` names. */
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
    if (request === null || request.status !== 'pending') return undefined;
    if (request.expiresAt.getTime() <= this.clock()) return undefined;
    const opened = this.vault.open(
      request.tenantId,
      request.secretsSealed,
      requestSecretsPurpose,
      request.masterKeyId ?? undefined,
    );
    const secrets = JSON.parse(opened.toString('utf8')) as RequestSecrets;
    // The hash matched; the sealed reference must too, so a row's box never answers for another's.
    if (secrets.reference !== reference) return undefined;
    return { request, secrets };
  }

  now(): Date {
    return new Date(this.clock());
  }
}
