import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { type DataSource, type EntityManager } from 'typeorm';
import {
  PresentationRequestEntity,
  type PresentedCredentialSummary,
} from './presentation-request.entity.js';

/** How a wallet's answer ended a pending request. */
export interface Conclusion {
  status: 'verified' | 'failed';
  outcomeCode: string | null;
  outcomeReason: string | null;
  presented: Record<string, PresentedCredentialSummary[]> | null;
  claimsSealed: Buffer | null;
  claimsMasterKeyId: string | null;
}

/** The one repository of `oid4vp_request`: the API's statements and the wallet endpoints'. */
@Injectable()
export class PresentationRequestRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  private repo(manager?: EntityManager) {
    return (manager ?? this.dataSource.manager).getRepository(PresentationRequestEntity);
  }

  /** The request a `request_uri` or `response_uri` names, by the hash of its reference. */
  findByReference(
    tenantId: string,
    referenceHash: Buffer,
  ): Promise<PresentationRequestEntity | null> {
    return this.repo().findOneBy({ tenantId, referenceHash });
  }

  /**
   * Ends a pending request with the wallet's one answer, when it is still pending and in time: false
   * when another answer came first or the time is up, and then nothing changed.
   */
  async conclude(
    manager: EntityManager,
    tenantId: string,
    id: string,
    conclusion: Conclusion,
    now: Date,
  ): Promise<boolean> {
    const result = await this.repo(manager)
      .createQueryBuilder()
      .update()
      .set({ ...conclusion, endedAt: now })
      .where(`id = :id AND tenant_id = :tenantId AND status = 'pending' AND expires_at > :now`, {
        id,
        tenantId,
        now,
      })
      .execute();
    return result.affected === 1;
  }
}
