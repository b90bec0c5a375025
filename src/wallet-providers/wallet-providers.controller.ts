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
  CreateWalletProviderDto,
  ListWalletProvidersQuery,
  WalletProviderDto,
  walletProviderExample,
  WalletProviderPageDto,
} from './dto/wallet-provider.dto.js';
import {
  SetWalletAttestationPolicyDto,
  WalletAttestationPolicyDto,
} from './dto/wallet-attestation-policy.dto.js';
import { WalletProvidersService } from './wallet-providers.service.js';

const base = '/ctrl/api/v1.0/wallet-providers';
const idParameter = {
  name: 'id',
  description: 'The wallet provider id.',
  schema: { type: 'string' as const, format: 'uuid', example: walletProviderExample.id },
};
const bodyProblems = [
  'VALIDATION_FAILED',
  'MALFORMED_JSON',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
] as const;

/** The tenant's trusted wallet providers, whose attestations its issuer accepts (docs/wallet-providers.md). */
@ApiTags('Wallet providers')
@ApiTenantSecurity()
@Controller('ctrl/api/v1.0/wallet-providers')
export class WalletProvidersController {
  constructor(private readonly walletProviders: WalletProvidersService) {}

  @Post('create')
  @TenantScoped()
  @HttpCode(201)
  @Idempotent()
  @ApiOperation({
    operationId: 'createWalletProvider',
    summary: 'Trust a wallet provider’s certificate',
    description:
      'The certificate (a CA or a self-signed one, in PEM) that a wallet provider’s wallet attestations and key attestations chain up to through their `x5c` (HAIP 1.0 §4.4, OpenID4VCI 1.0 Appendix D, E). Once the tenant lists one, its token endpoint requires a wallet attestation unless the policy says optional. At most 50.',
  })
  @ApiBody({
    type: CreateWalletProviderDto,
    examples: {
      provider: {
        summary: 'A wallet provider’s CA',
        value: {
          certificate: walletProviderExample.certificate,
          label: walletProviderExample.label,
        },
      },
    },
  })
  @ApiCreatedResponse({
    type: WalletProviderDto,
    description: 'The wallet provider.',
    example: walletProviderExample,
  })
  @ApiProblems(
    `${base}/create`,
    'WALLET_PROVIDER_ALREADY_EXISTS',
    'WALLET_PROVIDERS_LIMIT_REACHED',
    ...bodyProblems,
    ...tenantScopedProblems,
  )
  create(
    @CurrentTenant() tenantId: string,
    @Body() body: CreateWalletProviderDto,
    @CurrentActor() actor: Actor,
  ): Promise<WalletProviderDto> {
    return this.walletProviders.create(tenantId, body, actor);
  }

  @Get()
  @TenantScoped()
  @ApiOperation({
    operationId: 'listWalletProviders',
    summary: 'The tenant’s wallet providers, newest first',
  })
  @ApiOkResponse({
    type: WalletProviderPageDto,
    description: 'A page of wallet providers.',
    example: {
      content: [walletProviderExample],
      number: 0,
      size: 20,
      totalElements: 1,
      totalPages: 1,
    },
  })
  @ApiProblems(base, 'VALIDATION_FAILED', ...tenantScopedProblems)
  list(
    @CurrentTenant() tenantId: string,
    @Query() query: ListWalletProvidersQuery,
  ): Promise<WalletProviderPageDto> {
    return this.walletProviders.list(tenantId, query);
  }

  @Get('policy')
  @TenantScoped()
  @ApiOperation({
    operationId: 'getWalletAttestationPolicy',
    summary: 'Whether the tenant’s token endpoint requires a wallet attestation',
  })
  @ApiOkResponse({
    type: WalletAttestationPolicyDto,
    description: 'The setting in force.',
    example: { walletAttestation: 'required', explicit: false },
  })
  @ApiProblems(`${base}/policy`, ...tenantScopedProblems)
  policy(@CurrentTenant() tenantId: string): Promise<WalletAttestationPolicyDto> {
    return this.walletProviders.policy(tenantId);
  }

  @Post('policy')
  @TenantScoped()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'setWalletAttestationPolicy',
    summary: 'Require wallet attestations, make them optional, or go back to the default',
    description:
      'required: a token request without a valid wallet attestation is refused (invalid_client); optional: one that is sent must still verify. null: required once the tenant lists a wallet provider, optional while it lists none.',
  })
  @ApiBody({
    type: SetWalletAttestationPolicyDto,
    examples: {
      optional: { summary: 'Optional', value: { walletAttestation: 'optional' } },
      default: { summary: 'Back to the default', value: { walletAttestation: null } },
    },
  })
  @ApiOkResponse({
    type: WalletAttestationPolicyDto,
    description: 'The setting in force.',
    example: { walletAttestation: 'optional', explicit: true },
  })
  @ApiProblems(`${base}/policy`, ...bodyProblems, ...tenantScopedProblems)
  setPolicy(
    @CurrentTenant() tenantId: string,
    @Body() body: SetWalletAttestationPolicyDto,
    @CurrentActor() actor: Actor,
  ): Promise<WalletAttestationPolicyDto> {
    return this.walletProviders.setPolicy(tenantId, body, actor);
  }

  @Get(':id')
  @TenantScoped()
  @ApiOperation({ operationId: 'getWalletProvider', summary: 'One wallet provider of the tenant' })
  @ApiParam(idParameter)
  @ApiOkResponse({
    type: WalletProviderDto,
    description: 'The wallet provider.',
    example: walletProviderExample,
  })
  @ApiProblems(
    `${base}/${walletProviderExample.id}`,
    'WALLET_PROVIDER_NOT_FOUND',
    ...tenantScopedProblems,
  )
  get(@CurrentTenant() tenantId: string, @Param('id') id: string): Promise<WalletProviderDto> {
    return this.walletProviders.get(tenantId, id);
  }

  @Post(':id/delete')
  @TenantScoped()
  @HttpCode(204)
  @ApiOperation({
    operationId: 'deleteWalletProvider',
    summary: 'Remove a wallet provider of the tenant',
    description:
      'Attestations chaining up to it are refused from then on. Removing the last one makes the default policy optional.',
  })
  @ApiParam(idParameter)
  @ApiNoContentResponse({ description: 'Removed.' })
  @ApiProblems(
    `${base}/${walletProviderExample.id}/delete`,
    'WALLET_PROVIDER_NOT_FOUND',
    ...tenantScopedProblems,
  )
  async delete(
    @CurrentTenant() tenantId: string,
    @Param('id') id: string,
    @CurrentActor() actor: Actor,
  ): Promise<void> {
    await this.walletProviders.delete(tenantId, id, actor);
  }
}
