import { Injectable } from '@nestjs/common';
import { AuditLog } from '../../audit/audit-log.js';
import { type Actor } from '../../auth/caller.js';
import { DomainException } from '../../common/problem/domain.exception.js';
import { IssuedCredentialRepository } from './issued-credential.repository.js';
import { StatusListsService } from '../status/status-lists.service.js';
import { type UpdateStatusDto } from '../dto/credential-requests.dto.js';

/** Status changes of issued credentials: revoke, suspend, unsuspend. */
@Injectable()
export class CredentialStatusService {
  constructor(
    private readonly statusLists: StatusListsService,
    private readonly audit: AuditLog,
    private readonly records: IssuedCredentialRepository,
  ) {}

  /** Sets or clears a credential's status bit; one audit line. */
  async updateStatus(
    tenantId: string,
    actor: Actor,
    { credentialId, credentialStatus, status = true }: UpdateStatusDto,
  ): Promise<void> {
    const purpose = credentialStatus.statusPurpose;
    try {
      await this.statusLists.setStatus(tenantId, credentialId, purpose, status);
    } catch (error) {
      throw (await this.noSuspension(tenantId, credentialId, purpose, error)) ?? error;
    }
    this.audit.record('credential.status', actor, tenantId, {
      credentialId,
      statusPurpose: purpose,
      status,
    });
  }

  /**
   * A dc+sd-jwt or mso_mdoc credential has no suspension entry: its Token Status List has one bit,
   * revocation (docs/oid4vci.md, Token Status List); said so rather than "not found".
   */
  private async noSuspension(
    tenantId: string,
    credentialId: string,
    purpose: string,
    error: unknown,
  ): Promise<DomainException | undefined> {
    const notFound = error instanceof DomainException && error.code === 'CREDENTIAL_NOT_FOUND';
    if (!notFound || purpose !== 'suspension') return undefined;
    const format = await this.records.formatOf(tenantId, credentialId);
    if (format !== 'dc+sd-jwt' && format !== 'mso_mdoc') return undefined;
    const kind = format === 'dc+sd-jwt' ? 'an SD-JWT VC (dc+sd-jwt)' : 'an mdoc (mso_mdoc)';
    return new DomainException(
      'VALIDATION_FAILED',
      `Credential '${credentialId}' is ${kind}, which cannot be suspended: its status list has one bit, revocation.`,
      [
        {
          field: 'credentialStatus.statusPurpose',
          message: `must be revocation for a ${format} credential (no suspension)`,
        },
      ],
    );
  }
}
