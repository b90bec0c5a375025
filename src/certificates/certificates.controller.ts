import { Body, Controller, Get, HttpCode, Post, Query } from '@nestjs/common';
import { ApiBody, ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { CurrentActor, CurrentTenant, TenantScoped } from '../auth/access.decorators.js';
import { type Actor } from '../auth/caller.js';
import { ApiProblems, ApiTenantSecurity, tenantScopedProblems } from '../common/openapi.js';
import { PageQuery } from '../common/page-query.js';
import { Idempotent } from '../idempotency/idempotent.decorator.js';
import { CertificateRequestsService } from './certificate-requests.service.js';
import { CertificatesService } from './certificates.service.js';
import { certificateExamples } from './dto/certificate-examples.js';
import {
  AuthorityCertificateDto,
  CertificateDto,
  CertificatePageDto,
  CreateCsrDto,
  CsrDto,
  ImportCertificateDto,
  IssueCertificateDto,
} from './dto/certificate.dto.js';

const base = '/ctrl/api/v1.0/certificates';
const bodyProblems = [
  'VALIDATION_FAILED',
  'MALFORMED_JSON',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
] as const;
const example = certificateExamples.certificate;

/** The tenant's X.509 certificates for its ES256 key (docs/certificates.md). */
@ApiTags('Certificates')
@ApiTenantSecurity()
@Controller('ctrl/api/v1.0/certificates')
export class CertificatesController {
  constructor(
    private readonly certificates: CertificatesService,
    private readonly requests: CertificateRequestsService,
  ) {}

  @Get()
  @TenantScoped()
  @ApiOperation({
    operationId: 'listCertificates',
    summary: 'The tenant’s certificate chains, newest first',
    description:
      'At most one is `active`: the chain the tenant’s ES256 signatures carry in `x5c` (HAIP 1.0).',
  })
  @ApiOkResponse({
    type: CertificatePageDto,
    description: 'A page of chains.',
    example: { content: [example], number: 0, size: 20, totalElements: 1, totalPages: 1 },
  })
  @ApiProblems(base, 'VALIDATION_FAILED', ...tenantScopedProblems)
  list(@CurrentTenant() tenantId: string, @Query() query: PageQuery): Promise<CertificatePageDto> {
    return this.certificates.list(tenantId, query);
  }

  @Post('csr')
  @TenantScoped()
  @HttpCode(201)
  @ApiOperation({
    operationId: 'createCertificateSigningRequest',
    summary: 'A certificate signing request for the tenant’s ES256 key',
    description:
      'PKCS #10, signed by the tenant’s key, asking for keyUsage digitalSignature. `purpose` `x5c` (the default): it names the tenant’s credential issuer identifier (subjectAltName URI) and its host (dNSName) unless told otherwise. `document_signer`: the subject `C=<country>, CN=<tenant>` (country default `MDOC_ISSUER_COUNTRY`), extended key usage 1.0.18013.5.1.2, no names; your IACA adds the rest of the ISO/IEC 18013-5 Annex B.1.4 profile. Give it to your CA, then import the chain it answers with the same `purpose`.',
  })
  @ApiBody({
    type: CreateCsrDto,
    examples: {
      defaults: { summary: 'The default names', value: {} },
      names: {
        summary: 'Names of your own',
        value: {
          subject: 'ACME Issuing',
          dnsNames: ['issuer.example.com'],
          uris: ['https://issuer.example.com/ctrl/oid4vci/acme'],
        },
      },
      documentSigner: {
        summary: 'For an mdoc document signer your IACA signs',
        value: { purpose: 'document_signer', country: 'DE' },
      },
    },
  })
  @ApiCreatedResponse({
    type: CsrDto,
    description: 'The request.',
    example: { csr: certificateExamples.csr },
  })
  @ApiProblems(`${base}/csr`, ...bodyProblems, ...tenantScopedProblems)
  csr(@CurrentTenant() tenantId: string, @Body() body: CreateCsrDto): Promise<CsrDto> {
    return this.requests.csr(tenantId, body);
  }

  @Post('import')
  @TenantScoped()
  @HttpCode(201)
  @Idempotent()
  @ApiOperation({
    operationId: 'importCertificate',
    summary: 'Make a chain from your CA the tenant’s active one',
    description:
      'PEM, the leaf first, then its intermediates; a root at the end is left out of `x5c`. The leaf must certify the tenant’s ES256 key, not be self-signed and name digitalSignature; every certificate must be valid now and each signed by the next. `purpose` `x5c` (the default): the leaf names the tenant’s credential issuer URI or host. `document_signer`: the leaf has the ISO/IEC 18013-5 Annex B.1.4 profile (keyUsage digitalSignature only, extended key usage 1.0.18013.5.1.2, the countryName of its IACA, issuer alternative name, CRL distribution point, key identifiers), and the tenant’s mdocs carry it in `x5chain`. The earlier active chain of that purpose is superseded. A refused chain changes nothing.',
  })
  @ApiBody({
    type: ImportCertificateDto,
    examples: {
      chain: { summary: 'A leaf and its root', value: { chain: certificateExamples.chainPem } },
      documentSigner: {
        summary: 'A document signer and its IACA',
        value: { chain: certificateExamples.documentSignerChainPem, purpose: 'document_signer' },
      },
    },
  })
  @ApiCreatedResponse({
    type: CertificateDto,
    description: 'The chain, now active.',
    example: { ...example, source: 'imported' },
  })
  @ApiProblems(
    `${base}/import`,
    'CERTIFICATE_CHAIN_MALFORMED',
    'CERTIFICATE_KEY_MISMATCH',
    'CERTIFICATE_SELF_SIGNED',
    'CERTIFICATE_NOT_VALID_NOW',
    'CERTIFICATE_CHAIN_BROKEN',
    'CERTIFICATE_PROFILE_UNSUITABLE',
    ...bodyProblems,
    ...tenantScopedProblems,
  )
  import(
    @CurrentTenant() tenantId: string,
    @Body() body: ImportCertificateDto,
    @CurrentActor() actor: Actor,
  ): Promise<CertificateDto> {
    return this.requests.import(tenantId, body, actor);
  }

  @Post('issue')
  @TenantScoped()
  @HttpCode(201)
  @ApiOperation({
    operationId: 'issueCertificate',
    summary: 'A certificate from the service’s authority for the tenant’s ES256 key',
    description:
      'The new chain becomes the active one of its purpose and the earlier one of that purpose superseded. `purpose` `x5c` (the default): the chain of the tenant’s JWS (HAIP 1.0); `document_signer`: the document signer of its mdocs (ISO/IEC 18013-5 Annex B.1.4: countryName `MDOC_ISSUER_COUNTRY`, keyUsage digitalSignature, extended key usage 1.0.18013.5.1.2, issuer alternative name, CRL distribution point), the service’s authority acting as IACA. 409 when the operator configured no certificate authority.',
  })
  @ApiBody({
    type: IssueCertificateDto,
    required: false,
    examples: {
      x5c: { summary: 'The JWS chain (the default)', value: {} },
      documentSigner: {
        summary: 'The mdoc document signer',
        value: { purpose: 'document_signer' },
      },
    },
  })
  @ApiCreatedResponse({
    type: CertificateDto,
    description: 'The chain, now active.',
    example,
  })
  @ApiProblems(
    `${base}/issue`,
    'CERTIFICATE_AUTHORITY_NOT_CONFIGURED',
    ...bodyProblems,
    ...tenantScopedProblems,
  )
  issue(
    @CurrentTenant() tenantId: string,
    @CurrentActor() actor: Actor,
    @Body() body: IssueCertificateDto = {},
  ): Promise<CertificateDto> {
    return this.certificates.issue(tenantId, actor, body?.purpose);
  }

  @Get('authority')
  @TenantScoped()
  @ApiOperation({
    operationId: 'getCertificateAuthority',
    summary: 'The root certificate of the service’s authority',
    description:
      'The trust anchor of the chains `issue` makes: what wallets and verifiers configure to trust them.',
  })
  @ApiOkResponse({
    type: AuthorityCertificateDto,
    description: 'The root (PEM).',
    example: { certificate: certificateExamples.authorityPem },
  })
  @ApiProblems(`${base}/authority`, 'CERTIFICATE_AUTHORITY_NOT_CONFIGURED', ...tenantScopedProblems)
  authority(@CurrentTenant() tenantId: string): Promise<AuthorityCertificateDto> {
    return this.certificates.authorityCertificate(tenantId);
  }
}
