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
import {
  AdminOnly,
  Authenticated,
  CurrentActor,
  CurrentCaller,
} from '../auth/access.decorators.js';
import { ApiProblems, ApiTokenSecurity } from '../common/openapi.js';
import { Idempotent } from '../idempotency/idempotent.decorator.js';
import { visibilityOf, type Actor, type Caller } from '../auth/caller.js';
import { ListTenantsQuery } from './dto/list-tenants.query.js';
import { mergeQueryAndBody, newTenantFrom } from './dto/merge-input.js';
import { TenantFieldsDto, TenantUpdateFieldsDto } from './dto/tenant-fields.js';
import { TenantDto, TenantPageDto, tenantExample } from './dto/tenant.dto.js';
import { tenantIdPattern, tenantIdRule } from '../tenancy/tenant-id.js';
import { TenantIdPipe } from '../tenancy/tenant-id.pipe.js';
import { TenantsService } from './tenants.service.js';

const ApiTenantIdParam = () =>
  ApiParam({
    name: 'id',
    description: `Tenant id: ${tenantIdRule}.`,
    schema: {
      type: 'string',
      pattern: tenantIdPattern.source,
      maxLength: 64,
      example: tenantExample.id,
    },
  });

@ApiTags('Tenants')
@ApiTokenSecurity()
@Controller('ctrl/api/v1.0/tenants')
export class TenantsController {
  constructor(private readonly tenants: TenantsService) {}

  @Post('create')
  @AdminOnly()
  @HttpCode(201)
  @Idempotent()
  @ApiOperation({
    operationId: 'createTenant',
    summary: 'Create a tenant and its DID',
    description:
      'Fields as query parameters (as Lissi Agent takes them) or as a JSON body; both may be used if they agree.',
  })
  @ApiBody({
    type: TenantFieldsDto,
    required: false,
    description: 'The fields as a JSON object, instead of (or agreeing with) the query parameters.',
    // The first example is what "Try it out" sends: nothing, so that the query parameters decide.
    examples: {
      queryOnly: { summary: 'Empty: the fields are in the query parameters', value: {} },
      // Another tenant than the query parameters' example, so that the two examples work one after the other.
      tenant: {
        summary: 'A tenant with an image',
        value: { id: 'globex', label: 'Globex Inc.', imageUrl: 'https://globex.example/logo.png' },
      },
    },
  })
  @ApiCreatedResponse({
    type: TenantDto,
    description: 'The new tenant, with its DID.',
    example: tenantExample,
  })
  @ApiProblems(
    '/ctrl/api/v1.0/tenants/create',
    'VALIDATION_FAILED',
    'MALFORMED_JSON',
    'QUERY_BODY_MISMATCH',
    'UNAUTHORIZED',
    'FORBIDDEN',
    'TENANT_ALREADY_EXISTS',
    'PAYLOAD_TOO_LARGE',
    'UNSUPPORTED_MEDIA_TYPE',
  )
  create(
    @Query() query: TenantFieldsDto,
    @Body() body: TenantFieldsDto,
    @CurrentActor() actor: Actor,
  ): Promise<TenantDto> {
    return this.tenants.create(newTenantFrom(query, body), actor);
  }

  @Post(':id/update')
  @AdminOnly()
  @HttpCode(200)
  @ApiOperation({ operationId: 'updateTenant', summary: "Change a tenant's label or image" })
  @ApiTenantIdParam()
  @ApiBody({
    type: TenantUpdateFieldsDto,
    required: false,
    description:
      'The changes as a JSON object, instead of (or agreeing with) the query parameters.',
    examples: {
      queryOnly: { summary: 'Empty: the changes are in the query parameters', value: {} },
      label: { summary: 'A new label', value: { label: 'ACME Corporation' } },
      removeImage: { summary: 'No image any more', value: { imageUrl: null } },
    },
  })
  @ApiOkResponse({
    type: TenantDto,
    description: 'The tenant as changed.',
    example: { ...tenantExample, label: 'ACME Corporation' },
  })
  @ApiProblems(
    '/ctrl/api/v1.0/tenants/acme/update',
    'VALIDATION_FAILED',
    'MALFORMED_JSON',
    'QUERY_BODY_MISMATCH',
    'NOTHING_TO_UPDATE',
    'UNAUTHORIZED',
    'FORBIDDEN',
    'TENANT_NOT_FOUND',
    'PAYLOAD_TOO_LARGE',
    'UNSUPPORTED_MEDIA_TYPE',
  )
  update(
    @Param('id', TenantIdPipe) id: string,
    @Query() query: TenantUpdateFieldsDto,
    @Body() body: TenantUpdateFieldsDto,
    @CurrentActor() actor: Actor,
  ): Promise<TenantDto> {
    return this.tenants.update(id, mergeQueryAndBody(query, body, ['label', 'imageUrl']), actor);
  }

  @Post(':id/delete')
  @AdminOnly()
  @HttpCode(204)
  @ApiOperation({ operationId: 'deleteTenant', summary: 'Delete a tenant and destroy its keys' })
  @ApiTenantIdParam()
  @ApiNoContentResponse({ description: 'Deleted, with its keys.' })
  @ApiProblems(
    '/ctrl/api/v1.0/tenants/acme/delete',
    'VALIDATION_FAILED',
    'UNAUTHORIZED',
    'FORBIDDEN',
    'TENANT_NOT_FOUND',
  )
  delete(@Param('id', TenantIdPipe) id: string, @CurrentActor() actor: Actor): Promise<void> {
    return this.tenants.delete(id, actor);
  }

  @Get()
  @Authenticated()
  @ApiOperation({ operationId: 'listTenants', summary: 'List tenants, a page at a time' })
  @ApiOkResponse({
    type: TenantPageDto,
    description: 'One page of tenants (only its own for an agent-user).',
    example: { content: [tenantExample], number: 0, size: 20, totalElements: 1, totalPages: 1 },
  })
  @ApiProblems('/ctrl/api/v1.0/tenants', 'VALIDATION_FAILED', 'UNAUTHORIZED', 'FORBIDDEN')
  list(@Query() query: ListTenantsQuery, @CurrentCaller() caller: Caller): Promise<TenantPageDto> {
    return this.tenants.list(query, visibilityOf(caller));
  }

  @Get(':id')
  @Authenticated()
  @ApiOperation({ operationId: 'getTenant', summary: 'One tenant' })
  @ApiTenantIdParam()
  @ApiOkResponse({ type: TenantDto, description: 'The tenant.', example: tenantExample })
  @ApiProblems(
    '/ctrl/api/v1.0/tenants/acme',
    'VALIDATION_FAILED',
    'UNAUTHORIZED',
    'FORBIDDEN',
    'TENANT_NOT_FOUND',
  )
  get(@Param('id', TenantIdPipe) id: string, @CurrentCaller() caller: Caller): Promise<TenantDto> {
    return this.tenants.get(id, visibilityOf(caller));
  }
}
