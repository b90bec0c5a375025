import { Injectable } from '@nestjs/common';
import { AuditLog } from '../audit/audit-log.js';
import { type Actor } from '../auth/caller.js';
import { StatusListsService } from './status/status-lists.service.js';
import { type UpdateStatusDto } from './dto/credential-requests.dto.js';

/** Status changes of issued credentials: revoke, suspend, unsuspend. */
@Injectable()
export class CredentialStatusService {
  constructor(
    private readonly statusLists: StatusListsService,
    private readonly audit: AuditLog,
  ) {}

  /** Sets or clears a credential's status bit; one audit line. */
  async updateStatus(
    tenantId: string,
    actor: Actor,
    { credentialId, credentialStatus, status = true }: UpdateStatusDto,
  ): Promise<void> {
    const purpose = credentialStatus.statusPurpose;
    await this.statusLists.setStatus(tenantId, credentialId, purpose, status);
    this.audit.record('credential.status', actor, tenantId, {
      credentialId,
      statusPurpose: purpose,
      status,
    });
  }
}
