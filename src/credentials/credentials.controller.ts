import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import {
  ApiBody,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import { CurrentActor, CurrentTenant, TenantScoped } from '../auth/access.decorators.js';
import { type Actor } from '../auth/caller.js';
import { ApiProblems, ApiTenantSecurity, tenantScopedProblems } from '../common/openapi.js';
import { credentialBodyProblems } from './credential.errors.js';
import { CredentialIssuanceService } from './issuing/credential-issuance.service.js';
import { CredentialStatusService } from './issuing/credential-status.service.js';
import { CredentialVerificationService } from './verifying/credential-verification.service.js';
import { IssuedCredentialsService } from './issuing/issued-credentials.service.js';
import {
  IssuedCredentialPageDto,
  IssuedCredentialRecordDto,
  ListCredentialsQuery,
} from './dto/issued-credentials.dto.js';
import { IssuedCredentialDto, VerificationDto } from './dto/credential-answers.dto.js';
import {
  credentialExample,
  issuedExample,
  verifiableExample,
  IssueCredentialDto,
  UpdateStatusDto,
  verificationExample,
  VerifyCredentialDto,
} from './dto/credential-requests.dto.js';
import { MeasuredCredentialOperation } from './credential-metrics.interceptor.js';
import { Idempotent } from '../idempotency/idempotent.decorator.js';

const recordExample = {
  id: issuedExample.id,
  types: issuedExample.type,
  cryptosuite: 'eddsa-rdfc-2022',
  format: 'ldp_vc',
  doctype: null,
  offerId: null,
  configurationId: null,
  issuedAt: '2026-11-25T10:00:00.000Z',
  state: 'active',
  status: [
    {
      statusPurpose: 'revocation',
      statusListCredential:
        'http://localhost:8080/ctrl/status-lists/acme/0b9e3c56-5c3d-4f4e-9a59-3f1d1c2b7a10',
      statusListIndex: '94567',
      set: false,
    },
  ],
};

@ApiTags('Credentials')
@ApiTenantSecurity()
@Controller('ctrl/api/v1.0/credentials')
export class CredentialsController {
  constructor(
    private readonly issuance: CredentialIssuanceService,
    private readonly verification: CredentialVerificationService,
    private readonly statuses: CredentialStatusService,
    private readonly issued: IssuedCredentialsService,
  ) {}

  @Get()
  @TenantScoped()
  @ApiOperation({
    operationId: 'listCredentials',
    summary: 'The credentials the tenant issued, newest first',
    description:
      'Issuance records (id, types, cryptosuite, when, status entries and their state), never the claims; filter by type or state.',
  })
  @ApiOkResponse({
    type: IssuedCredentialPageDto,
    description: 'A page of issuance records.',
    example: {
      content: [recordExample],
      number: 0,
      size: 20,
      totalElements: 1,
      totalPages: 1,
      after: null,
    },
  })
  @ApiProblems('/ctrl/api/v1.0/credentials', 'VALIDATION_FAILED', ...tenantScopedProblems)
  async list(
    @CurrentTenant() tenantId: string,
    @Query() query: ListCredentialsQuery,
  ): Promise<IssuedCredentialPageDto> {
    return this.issued.list(tenantId, query);
  }

  @Get(':id')
  @TenantScoped()
  @ApiOperation({
    operationId: 'getCredential',
    summary: 'One credential the tenant issued',
    description: 'Its issuance record; the id is URL-encoded in the path.',
  })
  @ApiParam({
    name: 'id',
    description: 'The credential id (URL-encoded).',
    schema: { type: 'string', example: issuedExample.id },
  })
  @ApiOkResponse({
    type: IssuedCredentialRecordDto,
    description: 'The record.',
    example: recordExample,
  })
  @ApiProblems(
    '/ctrl/api/v1.0/credentials/urn:uuid:58172aac-d8ba-11ed-83dd-0b3aef56cc33',
    'CREDENTIAL_NOT_FOUND',
    ...tenantScopedProblems,
  )
  async get(
    @CurrentTenant() tenantId: string,
    @Param('id') id: string,
  ): Promise<IssuedCredentialRecordDto> {
    return this.issued.get(tenantId, id);
  }

  @Post('issue')
  @MeasuredCredentialOperation('issue')
  @TenantScoped()
  @HttpCode(201)
  @Idempotent()
  @ApiOperation({
    operationId: 'issueCredential',
    summary: "Issue a credential signed by the tenant's DID",
    description:
      "W3C VC API issue: a Data Integrity proof (`eddsa-rdfc-2022` by default, or `eddsa-jcs-2022`) made with the tenant's key. The credential may hold at most 950 JSON values (docs/credentials.md, Limits).",
  })
  @ApiBody({
    type: IssueCredentialDto,
    examples: {
      alumni: {
        summary: 'A VC 2.0 credential, signed with eddsa-rdfc-2022',
        value: { credential: credentialExample },
      },
      jcs: {
        summary: 'The same, signed with eddsa-jcs-2022, revocable and suspendable',
        value: {
          credential: credentialExample,
          options: {
            cryptosuite: 'eddsa-jcs-2022',
            credentialStatus: [
              { type: 'BitstringStatusListEntry', statusPurpose: 'revocation' },
              { type: 'BitstringStatusListEntry', statusPurpose: 'suspension' },
            ],
          },
        },
      },
    },
  })
  @ApiCreatedResponse({
    type: IssuedCredentialDto,
    description: 'The signed credential.',
    example: { verifiableCredential: issuedExample },
  })
  @ApiProblems(
    '/ctrl/api/v1.0/credentials/issue',
    ...credentialBodyProblems,
    ...tenantScopedProblems,
  )
  async issue(
    @CurrentTenant() tenantId: string,
    @CurrentActor() actor: Actor,
    @Body() body: IssueCredentialDto,
  ): Promise<IssuedCredentialDto> {
    return { verifiableCredential: await this.issuance.issue(tenantId, actor, body) };
  }

  @Post('status')
  @TenantScoped()
  @HttpCode(204)
  @ApiOperation({
    operationId: 'updateCredentialStatus',
    summary: 'Revoke, suspend or unsuspend a credential the tenant issued',
    description:
      "Sets (`status` absent or true) or clears (`false`, suspension only: a revocation is final) the credential's bit in its status list; the public list (and, for a revocation list, its Status List Token) shows it at once. A `dc+sd-jwt` or `mso_mdoc` credential has revocation only: its suspension is refused (400).",
  })
  @ApiBody({
    type: UpdateStatusDto,
    examples: {
      revoke: {
        summary: 'Revoke',
        value: {
          credentialId: issuedExample.id,
          credentialStatus: { type: 'BitstringStatusListEntry', statusPurpose: 'revocation' },
        },
      },
      revokeSdJwtVc: {
        summary:
          "Revoke by id in the credential's own list (a dc+sd-jwt credential: revocation only)",
        value: {
          credentialId: issuedExample.id,
          credentialStatus: { statusPurpose: 'revocation' },
        },
      },
      unsuspend: {
        summary: 'Lift a suspension',
        value: {
          credentialId: issuedExample.id,
          credentialStatus: { type: 'BitstringStatusListEntry', statusPurpose: 'suspension' },
          status: false,
        },
      },
    },
  })
  @ApiNoContentResponse({ description: 'The status is set.' })
  @ApiProblems(
    '/ctrl/api/v1.0/credentials/status',
    'CREDENTIAL_NOT_FOUND',
    'VALIDATION_FAILED',
    'MALFORMED_JSON',
    'PAYLOAD_TOO_LARGE',
    'UNSUPPORTED_MEDIA_TYPE',
    ...tenantScopedProblems,
  )
  async updateStatus(
    @CurrentTenant() tenantId: string,
    @CurrentActor() actor: Actor,
    @Body() body: UpdateStatusDto,
  ): Promise<void> {
    await this.statuses.updateStatus(tenantId, actor, body);
  }

  @Post('verify')
  @MeasuredCredentialOperation('verify')
  @TenantScoped()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'verifyCredential',
    summary: 'Verify a credential',
    description:
      "W3C VC API verify: every proof (a set or a chain), that the issuer's DID authorises the signing key, the validity period, and each status entry (read only once proof and issuer passed; remote lists within 5 s in all). 200 only when all pass; otherwise 422 with `verified: false` and `problemDetails`. A credential beyond a limit (a proofValue over 100 characters, more than 4 proofs, 1,000 JSON values, 8 status entries...: docs/credentials.md, Limits) is 400 naming it.",
  })
  @ApiBody({
    type: VerifyCredentialDto,
    examples: {
      issued: {
        summary: 'A credential another issuer signed (without a status entry)',
        value: { verifiableCredential: verifiableExample },
      },
    },
  })
  @ApiOkResponse({
    type: VerificationDto,
    description: 'Every check passed.',
    example: verificationExample,
  })
  @ApiProblems(
    '/ctrl/api/v1.0/credentials/verify',
    'CREDENTIAL_NOT_VERIFIED',
    ...credentialBodyProblems,
    ...tenantScopedProblems,
  )
  verify(
    @CurrentTenant() tenantId: string,
    @Body() body: VerifyCredentialDto,
  ): Promise<VerificationDto> {
    return this.verification.verify(tenantId, body);
  }
}
