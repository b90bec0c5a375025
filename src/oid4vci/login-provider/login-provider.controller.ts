import { Body, Controller, Get, HttpCode, Post } from '@nestjs/common';
import {
  ApiBody,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { CurrentActor, CurrentTenant, TenantScoped } from '../../auth/access.decorators.js';
import { type Actor } from '../../auth/caller.js';
import { ApiProblems, ApiTenantSecurity, tenantScopedProblems } from '../../common/openapi.js';
import {
  defaultLoginProviderExample,
  LoginProviderDto,
  loginProviderExample,
  SetLoginProviderDto,
} from './dto/login-provider.dto.js';
import { LoginProvidersService } from './login-providers.service.js';

const base = '/ctrl/api/v1.0/oid4vci/login-provider';
const bodyProblems = [
  'VALIDATION_FAILED',
  'MALFORMED_JSON',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
] as const;

/** Where the tenant's issuer sends a person to log in for a credential of their own claims. */
@ApiTags('OpenID4VCI')
@ApiTenantSecurity()
@Controller('ctrl/api/v1.0/oid4vci/login-provider')
export class LoginProviderController {
  constructor(private readonly providers: LoginProvidersService) {}

  @Post()
  @TenantScoped()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'setLoginProvider',
    summary: 'Set the OpenID provider people log in at for the tenant’s credentials',
    description:
      'Replaces the tenant’s login provider. The issuer’s discovery document is fetched and checked first (code flow, PKCE S256, client_secret_basic or client_secret_post); if that fails, nothing changes (422). Register the answer’s `redirectUri` with the client at the provider. The secret is stored sealed and never answered.',
  })
  @ApiBody({
    type: SetLoginProviderDto,
    examples: {
      provider: {
        summary: 'A Keycloak realm of the tenant’s own',
        value: {
          issuer: loginProviderExample.issuer,
          clientId: loginProviderExample.clientId,
          clientSecret: 'a-long-random-secret',
          scopes: loginProviderExample.scopes,
        },
      },
    },
  })
  @ApiOkResponse({
    type: LoginProviderDto,
    description: 'The provider, without its secret.',
    example: loginProviderExample,
  })
  @ApiProblems(base, 'LOGIN_PROVIDER_DISCOVERY_FAILED', ...bodyProblems, ...tenantScopedProblems)
  set(
    @CurrentTenant() tenantId: string,
    @Body() body: SetLoginProviderDto,
    @CurrentActor() actor: Actor,
  ): Promise<LoginProviderDto> {
    return this.providers.set(tenantId, body, actor);
  }

  @Get()
  @TenantScoped()
  @ApiOperation({
    operationId: 'getLoginProvider',
    summary: 'The tenant’s login provider, or the default',
    description:
      'Without one set, the default: the bundled realm (the service’s token issuer) and its client `agent-issuance-login`.',
  })
  @ApiOkResponse({
    type: LoginProviderDto,
    description: 'The provider, without its secret.',
    examples: {
      configured: { summary: 'One the tenant set', value: loginProviderExample },
      default: { summary: 'None set: the bundled realm', value: defaultLoginProviderExample },
    },
  })
  @ApiProblems(base, ...tenantScopedProblems)
  get(@CurrentTenant() tenantId: string): Promise<LoginProviderDto> {
    return this.providers.get(tenantId);
  }

  @Post('delete')
  @TenantScoped()
  @HttpCode(204)
  @ApiOperation({
    operationId: 'deleteLoginProvider',
    summary: 'Go back to the default login provider',
    description: 'Removes the tenant’s provider and its secret; 204 also when it had none.',
  })
  @ApiNoContentResponse({ description: 'The tenant uses the bundled realm.' })
  @ApiProblems(`${base}/delete`, ...tenantScopedProblems)
  async delete(@CurrentTenant() tenantId: string, @CurrentActor() actor: Actor): Promise<void> {
    await this.providers.delete(tenantId, actor);
  }
}
