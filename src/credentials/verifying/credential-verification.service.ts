import { Injectable } from '@nestjs/common';
import { DidService } from '../../did/did.service.js';
import { TrustedIssuerPolicy } from '../../trusted-issuers/trusted-issuer-policy.js';
import { notVerified } from '../credential.errors.js';
import { CredentialVerifier } from './credential-verifier.js';
import { type VerifyCredentialDto } from '../dto/credential-requests.dto.js';
import { type VerificationDto } from '../dto/credential-answers.dto.js';

/** Verifying a credential for a tenant, under the tenant's trusted issuers. */
@Injectable()
export class CredentialVerificationService {
  constructor(
    private readonly dids: DidService,
    private readonly verifier: CredentialVerifier,
    private readonly trust: TrustedIssuerPolicy,
  ) {}

  /** Every check of a secured credential; throws CREDENTIAL_NOT_VERIFIED naming each that failed. */
  async verify(
    tenantId: string,
    { verifiableCredential: credential, options = {} }: VerifyCredentialDto,
  ): Promise<VerificationDto> {
    // The tenant rules (an unknown tenant is 404); its DID then checks its own status lists.
    const { id: did } = await this.dids.getDid(tenantId);
    const trustedIssuers = await this.trust.trustedFor(tenantId, options);
    const { proofs, problems, checks, issuer } = await this.verifier.inspectCredential(
      credential,
      'verifiableCredential',
      undefined,
      { checks: options.checks, trustedIssuers },
      { tenantId, did },
    );
    if (problems.length > 0) throw notVerified(checks, problems);
    return { verified: true, checks, issuer: issuer ?? '', proofs, warnings: [] };
  }
}
