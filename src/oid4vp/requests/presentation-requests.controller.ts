import {
  Body,
  Controller,
  Get,
  Header,
  HttpCode,
  Param,
  Post,
  Query,
  StreamableFile,
} from '@nestjs/common';
import {
  ApiBody,
  ApiCreatedResponse,
  ApiExtraModels,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import { CurrentActor, CurrentTenant, TenantScoped } from '../../auth/access.decorators.js';
import { type Actor } from '../../auth/caller.js';
import { ApiProblems, ApiTenantSecurity, tenantScopedProblems } from '../../common/openapi.js';
import { Idempotent } from '../../idempotency/idempotent.decorator.js';
import {
  CreatePresentationRequestDto,
  dcqlQueryExample,
  membershipQueryExample,
  mdocDcqlQueryExample,
} from './dto/create-presentation-request.dto.js';
import { ListPresentationRequestsQuery } from './dto/list-presentation-requests.query.js';
import {
  CreatedPresentationRequestDto,
  PresentationRequestDto,
  PresentationRequestPageDto,
  PresentationRequestCredentialDto,
} from './dto/presentation-request-answer.dto.js';
import {
  createdDcApiRequestExample,
  createdRequestExample,
  failedRequestExample,
  requestExample,
  verifiedRequestExample,
  verifiedMdocRequestExample,
} from './dto/presentation-request.examples.js';
import { PresentationRequestsService } from './presentation-requests.service.js';
import { requestLimits } from './request-limits.js';

const base = '/ctrl/api/v1.0/oid4vp/requests';
const exampleId = requestExample.id;
const idParameter = {
  name: 'id',
  description: 'The presentation request id.',
  schema: { type: 'string' as const, format: 'uuid', example: exampleId },
};
const bodyProblems = [
  'VALIDATION_FAILED',
  'MALFORMED_JSON',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
] as const;
const qrProblems = [
  'PRESENTATION_REQUEST_NOT_FOUND',
  'PRESENTATION_REQUEST_NOT_PENDING',
  ...tenantScopedProblems,
] as const;

/** The tenant's OpenID4VP presentation requests: the tenant as verifier (docs/oid4vp.md, API). */
@ApiTags('OpenID4VP')
@ApiTenantSecurity()
@ApiExtraModels(PresentationRequestCredentialDto)
@Controller('ctrl/api/v1.0/oid4vp/requests')
export class PresentationRequestsController {
  constructor(private readonly requests: PresentationRequestsService) {}

  @Post()
  @TenantScoped()
  @HttpCode(201)
  @Idempotent()
  @ApiOperation({
    operationId: 'createPresentationRequest',
    summary: 'Ask a wallet to present credentials',
    description: `Answers the link for the wallet (\`openid4vp://\`, the request object by reference). The tenant is the client as \`clientIdPrefix\` says (OpenID4VP 1.0 §5.9.3): \`x509_hash\` by default when it has an active X.509 certificate (the request object signed ES256 with the chain in \`x5c\`, HAIP 1.0), else its DID (\`decentralized_identifier\`). The DCQL query is checked (formats dc+sd-jwt, ldp_vc and mso_mdoc). With \`responseMode\` \`dc_api\` or \`dc_api.jwt\` and \`expectedOrigins\`, the answer is a \`dcApiRequest\` for the browser’s Digital Credentials API instead of a link (OpenID4VP 1.0 appendix A): signed for an x509 client id, else unsigned. The request waits ${requestLimits.defaultExpiresIn} seconds unless told; at most ${requestLimits.pendingPerTenant} pending requests per tenant.`,
  })
  @ApiBody({
    type: CreatePresentationRequestDto,
    examples: {
      sdJwt: {
        summary: 'Two claims of an SD-JWT VC, answered in the clear (direct_post)',
        value: { dcqlQuery: dcqlQueryExample },
      },
      encrypted: {
        summary: 'The same, the answer encrypted (direct_post.jwt), for ten minutes',
        value: {
          dcqlQuery: dcqlQueryExample,
          responseMode: 'direct_post.jwt',
          expiresInSeconds: 600,
        },
      },
      sameDevice: {
        summary:
          'Same device: once verified, the wallet sends the browser back with a response_code',
        value: {
          dcqlQuery: dcqlQueryExample,
          responseMode: 'direct_post.jwt',
          redirectUri: 'https://shop.example/checkout/verified',
        },
      },
      x509SanDns: {
        summary: 'The verifier known by the DNS name its certificate names (x509_san_dns)',
        value: { dcqlQuery: dcqlQueryExample, clientIdPrefix: 'x509_san_dns' },
      },
      did: {
        summary: 'The verifier known by its DID (decentralized_identifier), no X.509',
        value: { dcqlQuery: dcqlQueryExample, clientIdPrefix: 'decentralized_identifier' },
      },
      mdoc: {
        summary: 'Three elements of an mDL (mso_mdoc, ISO/IEC 18013-5), the answer encrypted',
        value: { dcqlQuery: mdocDcqlQueryExample, responseMode: 'direct_post.jwt' },
      },
      dcApi: {
        summary:
          'Through the browser’s Digital Credentials API, the answer encrypted (dc_api.jwt, HAIP 1.0): a dcApiRequest, no link',
        value: {
          dcqlQuery: dcqlQueryExample,
          responseMode: 'dc_api.jwt',
          expectedOrigins: ['https://shop.example'],
        },
      },
      dcApiUnsigned: {
        summary:
          'The same, unsigned (no client_id: the wallet knows the verifier by the origin), in the clear, for a credential without holder binding',
        value: {
          dcqlQuery: membershipQueryExample,
          responseMode: 'dc_api',
          expectedOrigins: ['https://shop.example'],
          clientIdPrefix: 'decentralized_identifier',
        },
      },
    },
  })
  @ApiCreatedResponse({
    type: CreatedPresentationRequestDto,
    description: 'The request and its link, or its `dcApiRequest` (DC API).',
    examples: {
      link: { summary: 'A redirect request: its link', value: createdRequestExample },
      dcApi: { summary: 'A DC API request, signed', value: createdDcApiRequestExample },
    },
  })
  @ApiProblems(
    base,
    'PRESENTATION_REQUESTS_LIMIT_REACHED',
    'CLIENT_ID_PREFIX_UNAVAILABLE',
    ...bodyProblems,
    ...tenantScopedProblems,
  )
  create(
    @CurrentTenant() tenantId: string,
    @Body() body: CreatePresentationRequestDto,
    @CurrentActor() actor: Actor,
  ): Promise<CreatedPresentationRequestDto> {
    return this.requests.create(tenantId, body, actor);
  }

  @Get()
  @TenantScoped()
  @ApiOperation({
    operationId: 'listPresentationRequests',
    summary: 'The tenant’s presentation requests, newest first',
  })
  @ApiOkResponse({
    type: PresentationRequestPageDto,
    description: 'A page of requests.',
    example: { content: [requestExample], number: 0, size: 20, totalElements: 1, totalPages: 1 },
  })
  @ApiProblems(base, 'VALIDATION_FAILED', ...tenantScopedProblems)
  list(
    @CurrentTenant() tenantId: string,
    @Query() query: ListPresentationRequestsQuery,
  ): Promise<PresentationRequestPageDto> {
    return this.requests.list(tenantId, query);
  }

  @Get(':id')
  @TenantScoped()
  @ApiOperation({
    operationId: 'getPresentationRequest',
    summary: 'One presentation request of the tenant, with its outcome',
    description:
      'When verified: per credential query id, each credential’s issuer, type, holder key and status, and the disclosed claims while they are kept. When failed: a stable code and the reason.',
  })
  @ApiParam(idParameter)
  @ApiOkResponse({
    type: PresentationRequestDto,
    description: 'The request.',
    examples: {
      pending: { summary: 'Waiting for the wallet', value: requestExample },
      verified: { summary: 'Verified', value: verifiedRequestExample },
      verifiedMdoc: { summary: 'Verified: an mDL', value: verifiedMdocRequestExample },
      failed: { summary: 'Failed', value: failedRequestExample },
    },
  })
  @ApiProblems(`${base}/${exampleId}`, 'PRESENTATION_REQUEST_NOT_FOUND', ...tenantScopedProblems)
  get(@CurrentTenant() tenantId: string, @Param('id') id: string): Promise<PresentationRequestDto> {
    return this.requests.get(tenantId, id);
  }

  @Post(':id/delete')
  @TenantScoped()
  @HttpCode(204)
  @ApiOperation({
    operationId: 'deletePresentationRequest',
    summary: 'Delete a presentation request',
    description:
      'Its outcome and disclosed claims go with it; a pending one can no longer be answered.',
  })
  @ApiParam(idParameter)
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiProblems(
    `${base}/${exampleId}/delete`,
    'PRESENTATION_REQUEST_NOT_FOUND',
    ...tenantScopedProblems,
  )
  async delete(
    @CurrentTenant() tenantId: string,
    @Param('id') id: string,
    @CurrentActor() actor: Actor,
  ): Promise<void> {
    await this.requests.delete(tenantId, id, actor);
  }

  @Get(':id/qr.svg')
  @TenantScoped()
  @Header('Content-Type', 'image/svg+xml')
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    operationId: 'getPresentationRequestQrSvg',
    summary: 'The pending request’s link as a QR code (SVG)',
  })
  @ApiParam(idParameter)
  @ApiOkResponse({
    description:
      'The QR code of `authorizationRequestUri`. Drawn once and kept while open; when too many codes are being drawn at once, 503 `SERVICE_UNAVAILABLE` with `Retry-After: 1` (docs/performance.md, QR codes).',
    content: {
      'image/svg+xml': {
        schema: { type: 'string' },
        example:
          '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 61 61" shape-rendering="crispEdges"><path fill="#ffffff" d="M0 0h61v61H0z"/><path stroke="#000000" d="M2 2.5h7…"/></svg>',
      },
    },
  })
  @ApiProblems(`${base}/${exampleId}/qr.svg`, ...qrProblems)
  async qrSvg(@CurrentTenant() tenantId: string, @Param('id') id: string): Promise<string> {
    return (await this.requests.qrCode(tenantId, id, 'svg')) as string;
  }

  @Get(':id/qr.png')
  @TenantScoped()
  @Header('Content-Type', 'image/png')
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    operationId: 'getPresentationRequestQrPng',
    summary: 'The pending request’s link as a QR code (PNG)',
  })
  @ApiParam(idParameter)
  @ApiOkResponse({
    description:
      'The QR code of `authorizationRequestUri`, 512 pixels wide. Drawn once and kept while open; when too many codes are being drawn at once, 503 `SERVICE_UNAVAILABLE` with `Retry-After: 1` (docs/performance.md, QR codes).',
    content: {
      'image/png': {
        schema: { type: 'string', format: 'binary' },
        example: '(the PNG image’s bytes: 89 50 4E 47 0D 0A 1A 0A …)',
      },
    },
  })
  @ApiProblems(`${base}/${exampleId}/qr.png`, ...qrProblems)
  async qrPng(@CurrentTenant() tenantId: string, @Param('id') id: string): Promise<StreamableFile> {
    // A Buffer would be written as JSON: a StreamableFile is sent as bytes.
    const png = (await this.requests.qrCode(tenantId, id, 'png')) as Buffer;
    return new StreamableFile(png, { type: 'image/png', length: png.length });
  }
}
