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
import { CredentialConfigurationsService } from './credential-configurations.service.js';
import {
  CreateCredentialConfigurationDto,
  CredentialConfigurationBodyDto,
} from './dto/credential-configuration.dto.js';
import {
  configurationExample,
  mdocExamples,
  visitorPassExamples,
} from './dto/credential-configuration.examples.js';
import {
  CredentialConfigurationDto,
  CredentialConfigurationPageDto,
} from './dto/credential-configuration-answer.dto.js';
import { ListCredentialConfigurationsQuery } from './dto/list-credential-configurations.query.js';

const base = '/ctrl/api/v1.0/oid4vci/credential-configurations';
const idParameter = (example: string) => ({
  name: 'id',
  description: 'The credential configuration id.',
  schema: { type: 'string' as const, example },
});
const bodyProblems = [
  'VALIDATION_FAILED',
  'MALFORMED_JSON',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
] as const;
const exampleId = configurationExample.id;
/** The example as a request body: the answer's fields less the id, the tenant, the times and the nulls. */
const sdJwtBody = Object.fromEntries(
  Object.entries(configurationExample).filter(
    ([key, value]) => value !== null && !['id', 'tenantId', 'createdAt', 'updatedAt'].includes(key),
  ),
);

/** The kinds of credentials the tenant issues over OpenID4VCI: its issuer metadata lists them. */
@ApiTags('OpenID4VCI')
@ApiTenantSecurity()
@Controller('ctrl/api/v1.0/oid4vci/credential-configurations')
export class CredentialConfigurationsController {
  constructor(private readonly configurations: CredentialConfigurationsService) {}

  @Post('create')
  @TenantScoped()
  @HttpCode(201)
  @Idempotent()
  @ApiOperation({
    operationId: 'createCredentialConfiguration',
    summary: 'Add a credential configuration to the tenant’s OpenID4VCI issuer',
    description:
      'The id is the `credential_configuration_id` wallets see in the issuer metadata. dc+sd-jwt needs `vct`, ldp_vc needs `credentialDefinition`, mso_mdoc needs `doctype` and claims by `[namespace, element]` (docs/mdoc.md). At most 50 per tenant. (In local mode the demo tenant starts with `EmployeeBadge_sd_jwt` and `EmployeeBadge_ldp_vc`; the examples add a visitor pass.)',
  })
  @ApiBody({
    type: CreateCredentialConfigurationDto,
    examples: {
      sdJwt: { summary: 'An SD-JWT VC', value: visitorPassExamples.sdJwt },
      ldpVc: {
        summary: 'A W3C credential with a Data Integrity proof',
        value: visitorPassExamples.ldpVc,
      },
      mdl: { summary: 'An ISO mobile driving licence (mso_mdoc)', value: mdocExamples.mdl },
      pid: { summary: 'An EU PID as an mdoc (mso_mdoc)', value: mdocExamples.pid },
    },
  })
  @ApiCreatedResponse({
    type: CredentialConfigurationDto,
    description: 'The configuration.',
    example: configurationExample,
  })
  @ApiProblems(
    `${base}/create`,
    'CREDENTIAL_CONFIGURATION_ALREADY_EXISTS',
    'CREDENTIAL_CONFIGURATIONS_LIMIT_REACHED',
    ...bodyProblems,
    ...tenantScopedProblems,
  )
  create(
    @CurrentTenant() tenantId: string,
    @Body() body: CreateCredentialConfigurationDto,
    @CurrentActor() actor: Actor,
  ): Promise<CredentialConfigurationDto> {
    return this.configurations.create(tenantId, body, actor);
  }

  @Get()
  @TenantScoped()
  @ApiOperation({
    operationId: 'listCredentialConfigurations',
    summary: 'The tenant’s credential configurations, newest first',
  })
  @ApiOkResponse({
    type: CredentialConfigurationPageDto,
    description: 'A page of configurations.',
    example: {
      content: [configurationExample],
      number: 0,
      size: 20,
      totalElements: 1,
      totalPages: 1,
    },
  })
  @ApiProblems(base, 'VALIDATION_FAILED', ...tenantScopedProblems)
  list(
    @CurrentTenant() tenantId: string,
    @Query() query: ListCredentialConfigurationsQuery,
  ): Promise<CredentialConfigurationPageDto> {
    return this.configurations.list(tenantId, query);
  }

  @Get(':id')
  @TenantScoped()
  @ApiOperation({
    operationId: 'getCredentialConfiguration',
    summary: 'One credential configuration of the tenant',
  })
  @ApiParam(idParameter(exampleId))
  @ApiOkResponse({
    type: CredentialConfigurationDto,
    description: 'The configuration.',
    example: configurationExample,
  })
  @ApiProblems(
    `${base}/${exampleId}`,
    'CREDENTIAL_CONFIGURATION_NOT_FOUND',
    ...tenantScopedProblems,
  )
  get(
    @CurrentTenant() tenantId: string,
    @Param('id') id: string,
  ): Promise<CredentialConfigurationDto> {
    return this.configurations.get(tenantId, id);
  }

  @Post(':id/update')
  @TenantScoped()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'updateCredentialConfiguration',
    summary: 'Replace a credential configuration’s definition',
    description:
      'The body is the whole definition, as on create without `id`: a field left out takes its default.',
  })
  @ApiParam(idParameter(exampleId))
  @ApiBody({
    type: CredentialConfigurationBodyDto,
    examples: { sdJwt: { summary: 'An SD-JWT VC', value: sdJwtBody } },
  })
  @ApiOkResponse({
    type: CredentialConfigurationDto,
    description: 'The configuration as it is now.',
    example: configurationExample,
  })
  @ApiProblems(
    `${base}/${exampleId}/update`,
    'CREDENTIAL_CONFIGURATION_NOT_FOUND',
    ...bodyProblems,
    ...tenantScopedProblems,
  )
  update(
    @CurrentTenant() tenantId: string,
    @Param('id') id: string,
    @Body() body: CredentialConfigurationBodyDto,
    @CurrentActor() actor: Actor,
  ): Promise<CredentialConfigurationDto> {
    return this.configurations.update(tenantId, id, body, actor);
  }

  @Post(':id/delete')
  @TenantScoped()
  @HttpCode(204)
  @ApiOperation({
    operationId: 'deleteCredentialConfiguration',
    summary: 'Remove a credential configuration',
    description: 'Its entry leaves the issuer metadata at once.',
  })
  @ApiParam(idParameter(visitorPassExamples.sdJwt.id))
  @ApiNoContentResponse({ description: 'Removed.' })
  @ApiProblems(
    `${base}/${visitorPassExamples.sdJwt.id}/delete`,
    'CREDENTIAL_CONFIGURATION_NOT_FOUND',
    ...tenantScopedProblems,
  )
  async delete(
    @CurrentTenant() tenantId: string,
    @Param('id') id: string,
    @CurrentActor() actor: Actor,
  ): Promise<void> {
    await this.configurations.delete(tenantId, id, actor);
  }
}
