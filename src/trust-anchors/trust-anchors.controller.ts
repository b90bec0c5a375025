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
import { Idempotent } from '../idempotency/idempotent.decorator.js';
import {
  CreateTrustAnchorDto,
  ListTrustAnchorsQuery,
  TrustAnchorDto,
  trustAnchorExample,
  TrustAnchorPageDto,
} from './dto/trust-anchor.dto.js';
import { TrustAnchorsService } from './trust-anchors.service.js';

const base = '/ctrl/api/v1.0/trust-anchors';
const idParameter = {
  name: 'id',
  description: 'The anchor id.',
  schema: { type: 'string' as const, format: 'uuid', example: trustAnchorExample.id },
};
const bodyProblems = [
  'VALIDATION_FAILED',
  'MALFORMED_JSON',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
] as const;

/** The tenant's X.509 trust anchors, which `x5c` chains of presented credentials must end at. */
@ApiTags('Trust anchors')
@ApiTenantSecurity()
@Controller('ctrl/api/v1.0/trust-anchors')
export class TrustAnchorsController {
  constructor(private readonly trustAnchors: TrustAnchorsService) {}

  @Post('create')
  @TenantScoped()
  @HttpCode(201)
  @Idempotent()
  @ApiOperation({
    operationId: 'createTrustAnchor',
    summary: 'Add an X.509 trust anchor to the tenant',
    description:
      'A CA certificate or a self-signed one, in PEM. Once the tenant has an anchor, an SD-JWT VC whose header carries `x5c` verifies only when its chain ends at one of them (HAIP 1.0); without any, any chain that holds together. At most 100 anchors.',
  })
  @ApiBody({
    type: CreateTrustAnchorDto,
    examples: {
      ca: {
        summary: 'An issuing CA',
        value: { certificate: trustAnchorExample.certificate, label: trustAnchorExample.label },
      },
    },
  })
  @ApiCreatedResponse({
    type: TrustAnchorDto,
    description: 'The anchor.',
    example: trustAnchorExample,
  })
  @ApiProblems(
    `${base}/create`,
    'TRUST_ANCHOR_ALREADY_EXISTS',
    'TRUST_ANCHORS_LIMIT_REACHED',
    ...bodyProblems,
    ...tenantScopedProblems,
  )
  create(
    @CurrentTenant() tenantId: string,
    @Body() body: CreateTrustAnchorDto,
    @CurrentActor() actor: Actor,
  ): Promise<TrustAnchorDto> {
    return this.trustAnchors.create(tenantId, body, actor);
  }

  @Get()
  @TenantScoped()
  @ApiOperation({
    operationId: 'listTrustAnchors',
    summary: 'The tenant’s trust anchors, newest first',
  })
  @ApiOkResponse({
    type: TrustAnchorPageDto,
    description: 'A page of anchors.',
    example: {
      content: [trustAnchorExample],
      number: 0,
      size: 20,
      totalElements: 1,
      totalPages: 1,
    },
  })
  @ApiProblems(base, 'VALIDATION_FAILED', ...tenantScopedProblems)
  list(
    @CurrentTenant() tenantId: string,
    @Query() query: ListTrustAnchorsQuery,
  ): Promise<TrustAnchorPageDto> {
    return this.trustAnchors.list(tenantId, query);
  }

  @Get(':id')
  @TenantScoped()
  @ApiOperation({ operationId: 'getTrustAnchor', summary: 'One trust anchor of the tenant' })
  @ApiParam(idParameter)
  @ApiOkResponse({ type: TrustAnchorDto, description: 'The anchor.', example: trustAnchorExample })
  @ApiProblems(
    `${base}/${trustAnchorExample.id}`,
    'TRUST_ANCHOR_NOT_FOUND',
    ...tenantScopedProblems,
  )
  get(@CurrentTenant() tenantId: string, @Param('id') id: string): Promise<TrustAnchorDto> {
    return this.trustAnchors.get(tenantId, id);
  }

  @Post(':id/delete')
  @TenantScoped()
  @HttpCode(204)
  @ApiOperation({
    operationId: 'deleteTrustAnchor',
    summary: 'Remove a trust anchor of the tenant',
    description:
      'Removing the last anchor leaves the tenant without any: any x5c chain that holds together is accepted.',
  })
  @ApiParam(idParameter)
  @ApiNoContentResponse({ description: 'Removed.' })
  @ApiProblems(
    `${base}/${trustAnchorExample.id}/delete`,
    'TRUST_ANCHOR_NOT_FOUND',
    ...tenantScopedProblems,
  )
  async delete(
    @CurrentTenant() tenantId: string,
    @Param('id') id: string,
    @CurrentActor() actor: Actor,
  ): Promise<void> {
    await this.trustAnchors.delete(tenantId, id, actor);
  }
}
