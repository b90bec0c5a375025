import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentTenant, TenantScoped } from '../auth/access.decorators.js';
import { ApiProblems, ApiTenantSecurity, tenantScopedProblems } from '../common/openapi.js';
import { credentialBodyProblems } from './credential.errors.js';
import { PresentationVerificationDto } from './dto/credential-answers.dto.js';
import { verifiableExample } from './dto/credential-requests.dto.js';
import { VerifyPresentationDto } from './dto/presentation-requests.dto.js';
import { PresentationsService } from './verifying/presentations.service.js';
import { MeasuredCredentialOperation } from './credential-metrics.interceptor.js';

/** The example's holder: keyPair2 of the W3C Data Integrity EdDSA test vectors, which signed its proof. */
const holderDid = 'did:key:z6MkhWqdDBPojHA7cprTGTt5yHv5yUi1B8cnXn8ReLumkw6E';

@ApiTags('Credentials')
@ApiTenantSecurity()
@Controller('ctrl/api/v1.0/presentations')
export class PresentationsController {
  constructor(private readonly presentations: PresentationsService) {}

  @Post('verify')
  @MeasuredCredentialOperation('verify_presentation')
  @TenantScoped()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'verifyPresentation',
    summary: 'Verify a presentation and the credentials in it',
    description:
      "W3C VC API: the presentation's `authentication` proof by its holder, the challenge and domain when given, and every credential it carries. 200 only when all pass; otherwise 422 with `verified: false` and `problemDetails`. A presentation beyond a limit (more than 8 credentials or 1,000 JSON values with them, or a credential beyond its own: docs/credentials.md, Limits) is 400 naming it.",
  })
  @ApiBody({
    type: VerifyPresentationDto,
    examples: {
      presentation: {
        summary: 'A presentation of one credential',
        value: {
          verifiablePresentation: {
            '@context': ['https://www.w3.org/ns/credentials/v2'],
            type: ['VerifiablePresentation'],
            holder: holderDid,
            verifiableCredential: [verifiableExample],
            proof: {
              type: 'DataIntegrityProof',
              cryptosuite: 'eddsa-rdfc-2022',
              created: '2026-11-25T10:00:00Z',
              verificationMethod: `${holderDid}#${holderDid.slice('did:key:'.length)}`,
              proofPurpose: 'authentication',
              challenge: '7d9c2f0e-challenge',
              proofValue:
                'z3kDLdy6YyKUsqN6S1Z381M8L9wWEHmgVcCBsojEDnxEfDPonDp5eMYaAELHjbhNtgNLKXNhnmc2NKFjG61wXwYvQ',
            },
          },
          options: { challenge: '7d9c2f0e-challenge' },
        },
      },
    },
  })
  @ApiOkResponse({
    type: PresentationVerificationDto,
    description: 'Every check passed.',
    example: {
      verified: true,
      checks: ['proof', 'holder', 'challenge', 'domain', 'credential'],
      proofs: [{ type: 'DataIntegrityProof', proofPurpose: 'authentication' }],
      credentials: [{ id: verifiableExample.id, proofs: [{ type: 'DataIntegrityProof' }] }],
      warnings: [],
    },
  })
  @ApiProblems(
    '/ctrl/api/v1.0/presentations/verify',
    'CREDENTIAL_NOT_VERIFIED',
    ...credentialBodyProblems,
    ...tenantScopedProblems,
  )
  verify(
    @CurrentTenant() tenantId: string,
    @Body() body: VerifyPresentationDto,
  ): Promise<PresentationVerificationDto> {
    return this.presentations.verify(tenantId, body);
  }
}
