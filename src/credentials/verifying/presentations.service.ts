import { Injectable } from '@nestjs/common';
import { DidService } from '../../did/did.service.js';
import { type FieldError } from '../../common/problem/problem.js';
import {
  checkProblemTypes,
  credentialInvalid,
  notVerified,
  type CheckProblem,
} from '../credential.errors.js';
import { asArray, contextErrors, idOf, isJsonObject } from '../credential-checks.js';
import { CredentialVerifier, statusDeadline } from './credential-verifier.js';
import { type PresentationVerificationDto } from '../dto/credential-answers.dto.js';
import { type VerifyPresentationDto } from '../dto/presentation-requests.dto.js';
import { presentationLimitErrors } from '../verification-limits.js';
import { TrustedIssuerPolicy } from '../../trusted-issuers/trusted-issuer-policy.js';

type Json = Record<string, unknown>;

const field = 'verifiablePresentation';

@Injectable()
export class PresentationsService {
  constructor(
    private readonly dids: DidService,
    private readonly verifier: CredentialVerifier,
    private readonly trust: TrustedIssuerPolicy,
  ) {}

  /**
   * The presentation's own proof (an `authentication` proof by the holder, with the expected challenge
   * and domain) and every credential in it; throws CREDENTIAL_NOT_VERIFIED naming each failed check.
   */
  async verify(
    tenantId: string,
    { verifiablePresentation: presentation, options = {} }: VerifyPresentationDto,
  ): Promise<PresentationVerificationDto> {
    // The tenant rules (an unknown tenant is 404); its DID then checks its own status lists.
    const { id: did } = await this.dids.getDid(tenantId);
    const beyond = presentationLimitErrors(presentation, field);
    if (beyond.length > 0) throw credentialInvalid(beyond);
    const errors = presentationShapeErrors(presentation);
    if (errors.length > 0) throw credentialInvalid(errors);
    await this.verifier.expand(presentation, field);

    // One deadline for every document the presentation makes the service fetch: DIDs, status lists.
    const deadline = statusDeadline();
    const { proofs, problems } = await this.verifier.inspectProofs(presentation, deadline);
    const holder = holderOf(presentation, proofs);
    const holderProblem =
      holder === undefined
        ? 'the presentation names no holder and its proof no verification method'
        : await this.verifier.keyProblem(holder, proofs, 'authentication', deadline);
    if (holderProblem !== undefined) {
      problems.push({
        type: checkProblemTypes.holder,
        check: 'holder',
        title: 'Not signed by the holder',
        detail: holderProblem,
      });
    }
    problems.push(...bindingProblems(proofs, options));

    const credentials = asArray(presentation.verifiableCredential);
    const credentialResults: { id?: string; issuer?: string; proofs: Json[] }[] = [];
    const policy = {
      checks: options.checks,
      trustedIssuers: await this.trust.trustedFor(tenantId, options),
    };
    for (const [index, credential] of credentials.entries()) {
      const where = `${field}.verifiableCredential[${index}]`;
      const inspection = await this.verifier.inspectCredential(
        credential as Json,
        where,
        deadline,
        policy,
        { tenantId, did },
      );
      credentialResults.push({
        id: (credential as Json).id as string | undefined,
        issuer: inspection.issuer,
        proofs: inspection.proofs,
      });
      problems.push(
        ...inspection.problems.map((problem) => ({
          ...problem,
          check: 'credential' as const,
          detail: `${where}: ${problem.check}: ${problem.detail}`,
        })),
      );
    }

    const checks = ['proof', 'holder', 'challenge', 'domain', 'credential'];
    if (problems.length > 0) throw notVerified(checks, problems);
    return { verified: true, checks, proofs, credentials: credentialResults, warnings: [] };
  }
}

function presentationShapeErrors(presentation: Json): FieldError[] {
  const errors = contextErrors(presentation, `${field}.`);
  if (!asArray(presentation.type).includes('VerifiablePresentation')) {
    errors.push({ field: `${field}.type`, message: "must include 'VerifiablePresentation'" });
  }
  if (presentation.proof === undefined) {
    errors.push({ field: `${field}.proof`, message: 'is required' });
  }
  const credentials = asArray(presentation.verifiableCredential);
  if (!credentials.every(isJsonObject)) {
    errors.push({
      field: `${field}.verifiableCredential`,
      message: 'must be credentials (objects)',
    });
  }
  return errors;
}

/** The holder, or else the DID whose key made the first proof (a self-asserted presentation). */
function holderOf(presentation: Json, proofs: Json[]): string | undefined {
  const holder = idOf(presentation.holder);
  if (holder !== undefined) return holder;
  const method = proofs[0]?.verificationMethod;
  return typeof method === 'string' ? method.split('#')[0] : undefined;
}

function bindingProblems(
  proofs: Json[],
  options: { challenge?: string; domain?: string },
): CheckProblem[] {
  const problems: CheckProblem[] = [];
  const { challenge, domain } = options;
  if (challenge !== undefined && !proofs.every((proof) => proof.challenge === challenge)) {
    problems.push({
      type: checkProblemTypes.challenge,
      check: 'challenge',
      title: 'Challenge does not match',
      detail: `the proof's challenge is not the expected '${challenge}'`,
    });
  }
  if (domain !== undefined && !proofs.every((proof) => asArray(proof.domain).includes(domain))) {
    problems.push({
      type: checkProblemTypes.domain,
      check: 'domain',
      title: 'Domain does not match',
      detail: `the proof's domain does not name '${domain}'`,
    });
  }
  return problems;
}
