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
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import { CurrentActor, CurrentTenant, TenantScoped } from '../../auth/access.decorators.js';
import { type Actor } from '../../auth/caller.js';
import { ApiProblems, ApiTenantSecurity, tenantScopedProblems } from '../../common/openapi.js';
import { Idempotent } from '../../idempotency/idempotent.decorator.js';
import { configurationExample } from '../dto/credential-configuration.examples.js';
import { CreateOfferDto, offerClaimsExample, TxCodeRequestDto } from './dto/create-offer.dto.js';
import { ListOffersQuery } from './dto/list-offers.query.js';
import {
  CreatedOfferDto,
  createdOfferExample,
  OfferDto,
  offerExample,
  OfferPageDto,
} from './dto/offer-answer.dto.js';
import { OffersService } from './offers.service.js';

const base = '/ctrl/api/v1.0/oid4vci/offers';
const exampleId = offerExample.id;
const idParameter = {
  name: 'id',
  description: 'The offer id.',
  schema: { type: 'string' as const, format: 'uuid', example: exampleId },
};
const bodyProblems = [
  'VALIDATION_FAILED',
  'MALFORMED_JSON',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
] as const;
const withdrawnExample = {
  ...offerExample,
  status: 'withdrawn',
  updatedAt: '2026-11-25T10:02:00.000Z',
};

/** The tenant's OpenID4VCI credential offers (pre-authorized code flow, OpenID4VCI 1.0 §4). */
@ApiTags('OpenID4VCI')
@ApiTenantSecurity()
@ApiExtraModels(TxCodeRequestDto)
@Controller('ctrl/api/v1.0/oid4vci/offers')
export class OffersController {
  constructor(private readonly offers: OffersService) {}

  @Post()
  @TenantScoped()
  @HttpCode(201)
  @Idempotent()
  @ApiOperation({
    operationId: 'createOffer',
    summary: 'Offer a credential to a wallet',
    description:
      'Answers the Credential Offer and the link for the wallet (by reference unless `byValue`); the transaction code, when asked for, is answered here only. The offer stays open 600 seconds unless told; at most 1000 open offers per tenant, and a burst under that cap never fails. The claims are stored sealed and never answered.',
  })
  @ApiBody({
    type: CreateOfferDto,
    examples: {
      txCode: {
        summary: 'With a six-digit transaction code',
        value: {
          credentialConfigurationId: configurationExample.id,
          claims: offerClaimsExample,
          txCode: true,
        },
      },
      byValue: {
        summary: 'Without a transaction code, the offer in the link',
        value: {
          credentialConfigurationId: configurationExample.id,
          claims: offerClaimsExample,
          expiresInSeconds: 3600,
          byValue: true,
        },
      },
      authorizationCode: {
        summary: 'For a person who logs in first (authorization code flow), pinned by login name',
        value: {
          credentialConfigurationId: configurationExample.id,
          grant: 'authorization_code',
          subject: 'erika.mustermann',
          claims: {},
        },
      },
    },
  })
  @ApiCreatedResponse({
    type: CreatedOfferDto,
    description: 'The offer, its link and its transaction code.',
    example: createdOfferExample,
  })
  @ApiProblems(
    base,
    'CREDENTIAL_CONFIGURATION_NOT_FOUND',
    'OFFERS_LIMIT_REACHED',
    ...bodyProblems,
    ...tenantScopedProblems,
  )
  create(
    @CurrentTenant() tenantId: string,
    @Body() body: CreateOfferDto,
    @CurrentActor() actor: Actor,
  ): Promise<CreatedOfferDto> {
    return this.offers.create(tenantId, body, actor);
  }

  @Get()
  @TenantScoped()
  @ApiOperation({
    operationId: 'listOffers',
    summary: 'The tenant’s credential offers, newest first',
  })
  @ApiOkResponse({
    type: OfferPageDto,
    description: 'A page of offers.',
    example: { content: [offerExample], number: 0, size: 20, totalElements: 1, totalPages: 1 },
  })
  @ApiProblems(base, 'VALIDATION_FAILED', ...tenantScopedProblems)
  list(@CurrentTenant() tenantId: string, @Query() query: ListOffersQuery): Promise<OfferPageDto> {
    return this.offers.list(tenantId, query);
  }

  @Get(':id')
  @TenantScoped()
  @ApiOperation({ operationId: 'getOffer', summary: 'One credential offer of the tenant' })
  @ApiParam(idParameter)
  @ApiOkResponse({ type: OfferDto, description: 'The offer.', example: offerExample })
  @ApiProblems(`${base}/${exampleId}`, 'OFFER_NOT_FOUND', ...tenantScopedProblems)
  get(@CurrentTenant() tenantId: string, @Param('id') id: string): Promise<OfferDto> {
    return this.offers.get(tenantId, id);
  }

  @Post(':id/withdraw')
  @TenantScoped()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'withdrawOffer',
    summary: 'Withdraw an open credential offer',
    description: 'Its claims are dropped; the wallet can no longer use it.',
  })
  @ApiParam(idParameter)
  @ApiOkResponse({
    type: OfferDto,
    description: 'The offer, withdrawn.',
    example: withdrawnExample,
  })
  @ApiProblems(
    `${base}/${exampleId}/withdraw`,
    'OFFER_NOT_FOUND',
    'OFFER_NOT_OPEN',
    ...tenantScopedProblems,
  )
  withdraw(
    @CurrentTenant() tenantId: string,
    @Param('id') id: string,
    @CurrentActor() actor: Actor,
  ): Promise<OfferDto> {
    return this.offers.withdraw(tenantId, id, actor);
  }

  @Get(':id/qr.svg')
  @TenantScoped()
  @Header('Content-Type', 'image/svg+xml')
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    operationId: 'getOfferQrSvg',
    summary: 'The open offer’s link as a QR code (SVG)',
  })
  @ApiParam(idParameter)
  @ApiOkResponse({
    description:
      'The QR code of `credentialOfferUri`. Drawn once and kept while open; when too many codes are being drawn at once, 503 `SERVICE_UNAVAILABLE` with `Retry-After: 1` (docs/performance.md, QR codes).',
    content: {
      'image/svg+xml': {
        schema: { type: 'string' },
        example:
          '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 61 61" shape-rendering="crispEdges"><path fill="#ffffff" d="M0 0h61v61H0z"/><path stroke="#000000" d="M2 2.5h7…"/></svg>',
      },
    },
  })
  @ApiProblems(
    `${base}/${exampleId}/qr.svg`,
    'OFFER_NOT_FOUND',
    'OFFER_NOT_OPEN',
    ...tenantScopedProblems,
  )
  async qrSvg(@CurrentTenant() tenantId: string, @Param('id') id: string): Promise<string> {
    return (await this.offers.qrCode(tenantId, id, 'svg')) as string;
  }

  @Get(':id/qr.png')
  @TenantScoped()
  @Header('Content-Type', 'image/png')
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    operationId: 'getOfferQrPng',
    summary: 'The open offer’s link as a QR code (PNG)',
  })
  @ApiParam(idParameter)
  @ApiOkResponse({
    description:
      'The QR code of `credentialOfferUri`, 512 pixels wide. Drawn once and kept while open; when too many codes are being drawn at once, 503 `SERVICE_UNAVAILABLE` with `Retry-After: 1` (docs/performance.md, QR codes).',
    content: {
      'image/png': {
        schema: { type: 'string', format: 'binary' },
        example: '(the PNG image’s bytes: 89 50 4E 47 0D 0A 1A 0A …)',
      },
    },
  })
  @ApiProblems(
    `${base}/${exampleId}/qr.png`,
    'OFFER_NOT_FOUND',
    'OFFER_NOT_OPEN',
    ...tenantScopedProblems,
  )
  async qrPng(@CurrentTenant() tenantId: string, @Param('id') id: string): Promise<StreamableFile> {
    // A Buffer would be written as JSON: a StreamableFile is sent as bytes.
    const png = (await this.offers.qrCode(tenantId, id, 'png')) as Buffer;
    return new StreamableFile(png, { type: 'image/png', length: png.length });
  }
}
