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
  CreateTrustedIssuerDto,
  ListTrustedIssuersQuery,
  TrustedIssuerDto,
  trustedIssuerExample,
  TrustedIssuerPageDto,
} from './dto/trusted-issuer.dto.js';
import { TrustedIssuersService } from './trusted-issuers.service.js';

const base = '/ctrl/api/v1.0/trusted-issuers';
const idParameter = {
  name: 'id',
  description: 'The entry id.',
  schema: { type: 'string' as const, format: 'uuid', example: trustedIssuerExample.id },
};
const bodyProblems = [
  'VALIDATION_FAILED',
  'MALFORMED_JSON',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
] as const;

/** The tenant's trusted issuers list, which verification applies when a request names none. */
@ApiTags('Trusted issuers')
@ApiTenantSecurity()
@Controller('ctrl/api/v1.0/trusted-issuers')
export class TrustedIssuersController {
  constructor(private readonly trustedIssuers: TrustedIssuersService) {}

  @Post('create')
  @TenantScoped()
  @HttpCode(201)
  @Idempotent()
  @ApiOperation({
    operationId: 'createTrustedIssuer',
    summary: 'Add an issuer to the tenant’s trusted issuers',
    description:
      'Once the list has an entry, credential and presentation verification accept only credentials of the listed issuers (unless the request names its own `options.trustedIssuers`). At most 100 entries.',
  })
  @ApiBody({
    type: CreateTrustedIssuerDto,
    examples: {
      did: {
        summary: 'A did:key issuer',
        value: {
          issuer: trustedIssuerExample.issuer,
          description: trustedIssuerExample.description,
        },
      },
    },
  })
  @ApiCreatedResponse({
    type: TrustedIssuerDto,
    description: 'The entry.',
    example: trustedIssuerExample,
  })
  @ApiProblems(
    `${base}/create`,
    'TRUSTED_ISSUER_ALREADY_EXISTS',
    'TRUSTED_ISSUERS_LIMIT_REACHED',
    ...bodyProblems,
    ...tenantScopedProblems,
  )
  create(
    @CurrentTenant() tenantId: string,
    @Body() body: CreateTrustedIssuerDto,
    @CurrentActor() actor: Actor,
  ): Promise<TrustedIssuerDto> {
    return this.trustedIssuers.create(tenantId, body, actor);
  }

  @Get()
  @TenantScoped()
  @ApiOperation({
    operationId: 'listTrustedIssuers',
    summary: 'The tenant’s trusted issuers, newest first',
  })
  @ApiOkResponse({
    type: TrustedIssuerPageDto,
    description: 'A page of entries.',
    example: {
      content: [trustedIssuerExample],
      number: 0,
      size: 20,
      totalElements: 1,
      totalPages: 1,
    },
  })
  @ApiProblems(base, 'VALIDATION_FAILED', ...tenantScopedProblems)
  list(
    @CurrentTenant() tenantId: string,
    @Query() query: ListTrustedIssuersQuery,
  ): Promise<TrustedIssuerPageDto> {
    return this.trustedIssuers.list(tenantId, query);
  }

  @Get(':id')
  @TenantScoped()
  @ApiOperation({ operationId: 'getTrustedIssuer', summary: 'One trusted issuer of the tenant' })
  @ApiParam(idParameter)
  @ApiOkResponse({
    type: TrustedIssuerDto,
    description: 'The entry.',
    example: trustedIssuerExample,
  })
  @ApiProblems(
    `${base}/${trustedIssuerExample.id}`,
    'TRUSTED_ISSUER_NOT_FOUND',
    ...tenantScopedProblems,
  )
  get(@CurrentTenant() tenantId: string, @Param('id') id: string): Promise<TrustedIssuerDto> {
    return this.trustedIssuers.get(tenantId, id);
  }

  @Post(':id/delete')
  @TenantScoped()
  @HttpCode(204)
  @ApiOperation({
    operationId: 'deleteTrustedIssuer',
    summary: 'Remove an issuer from the tenant’s trusted issuers',
    description:
      'Removing the last entry leaves the tenant without a list: any issuer is accepted.',
  })
  @ApiParam(idParameter)
  @ApiNoContentResponse({ description: 'Removed.' })
  @ApiProblems(
    `${base}/${trustedIssuerExample.id}/delete`,
    'TRUSTED_ISSUER_NOT_FOUND',
    ...tenantScopedProblems,
  )
  async delete(
    @CurrentTenant() tenantId: string,
    @Param('id') id: string,
    @CurrentActor() actor: Actor,
  ): Promise<void> {
    await this.trustedIssuers.delete(tenantId, id, actor);
  }
}
