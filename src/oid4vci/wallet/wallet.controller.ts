import { Controller, HttpCode, Param, Post, Req, Res, UseFilters } from '@nestjs/common';
import {
  ApiBody,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import { type Request, type Response } from 'express';
import { Public } from '../../auth/access.decorators.js';
import { Settings } from '../../config/settings.js';
import { TenantIdPipe } from '../../tenancy/tenant-id.pipe.js';
import { credentialIssuerOf } from '../issuer-metadata.js';
import {
  CredentialEndpointService,
  type CredentialResponse,
  type ProtectedCall,
} from './credential-endpoint.service.js';
import { NoncesService } from './nonces.service.js';
import { TokenEndpointService, type TokenResponse } from './token-endpoint.service.js';
import { readForm, readJsonObject } from './wallet-body.js';
import { WalletErrorFilter } from './wallet-error.js';

const tenantParameter = {
  name: 'tenantId',
  description: 'The tenant whose issuer this is.',
  schema: { type: 'string' as const, example: 'acme' },
};
const object = (example: Record<string, unknown>) => ({
  'application/json': { schema: { type: 'object' as const, additionalProperties: true }, example },
});
const oauthErrors =
  'Errors are OAuth JSON `{error, error_description}` (RFC 6749 §5.2, OpenID4VCI 1.0 §8.3.1.2) with `Cache-Control: no-store`.';

/**
 * The wallet's side of each tenant's OpenID4VCI issuer (docs/oid4vci.md): public routes under the
 * credential issuer identifier, answering OAuth errors rather than problems; the request body is read
 * here, after the rate limit, with the wallet endpoints' own bounds.
 */
@ApiTags('OpenID4VCI')
@UseFilters(WalletErrorFilter)
@Controller('ctrl/oid4vci/:tenantId')
export class WalletController {
  constructor(
    private readonly settings: Settings,
    private readonly tokens: TokenEndpointService,
    private readonly nonces: NoncesService,
    private readonly credentials: CredentialEndpointService,
  ) {}

  @Post('token')
  @Public()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'oid4vciToken',
    summary: 'Token endpoint: the pre-authorized code grant (OpenID4VCI 1.0 §6)',
    description: `application/x-www-form-urlencoded \`grant_type\`, \`pre-authorized_code\`, \`tx_code\`; a \`DPoP\` proof binds the token (RFC 9449). ${oauthErrors}`,
  })
  @ApiParam(tenantParameter)
  @ApiOkResponse({
    description: 'The access token.',
    content: object({ access_token: '…', token_type: 'DPoP', expires_in: 300 }),
  })
  async token(
    @Param('tenantId', TenantIdPipe) tenantId: string,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<TokenResponse> {
    noStore(response);
    const form = await readForm(request, response);
    return this.tokens.token({
      tenantId,
      form,
      dpop: request.headers.dpop as string | undefined,
      url: `${this.issuerOf(tenantId)}/token`,
    });
  }

  @Post('nonce')
  @Public()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'oid4vciNonce',
    summary: 'Nonce endpoint: a fresh c_nonce for key proofs (OpenID4VCI 1.0 §7)',
  })
  @ApiParam(tenantParameter)
  @ApiOkResponse({ description: 'The nonce.', content: object({ c_nonce: '…' }) })
  async nonce(
    @Param('tenantId', TenantIdPipe) tenantId: string,
    @Res({ passthrough: true }) response: Response,
  ): Promise<{ c_nonce: string }> {
    noStore(response);
    return { c_nonce: await this.nonces.issue(tenantId) };
  }

  @Post('credential')
  @Public()
  @HttpCode(200)
  @ApiOperation({
    operationId: 'oid4vciCredential',
    summary: 'Credential endpoint (OpenID4VCI 1.0 §8)',
    description: `With the token endpoint's access token (\`Bearer\`, or \`DPoP\` and a proof); \`{credential_configuration_id, proofs: {jwt: [...]}}\`, one or two proofs. ${oauthErrors}`,
  })
  @ApiParam(tenantParameter)
  @ApiBody({
    schema: { type: 'object', additionalProperties: true },
    examples: {
      request: {
        value: { credential_configuration_id: 'EmployeeBadge_sd_jwt', proofs: { jwt: ['…'] } },
      },
    },
  })
  @ApiOkResponse({
    description: 'The credentials, one per proof.',
    content: object({ credentials: [{ credential: '…' }], notification_id: '…' }),
  })
  async credential(
    @Param('tenantId', TenantIdPipe) tenantId: string,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<CredentialResponse> {
    noStore(response);
    const call = this.callOf(tenantId, request, 'credential');
    // The token first: a caller without one does not get its body read.
    const authorized = await this.credentials.authorize(call, 'accepted');
    const body = await readJsonObject(request, response, 'invalid_credential_request');
    return this.credentials.credential(call, authorized, body);
  }

  @Post('notification')
  @Public()
  @HttpCode(204)
  @ApiOperation({
    operationId: 'oid4vciNotification',
    summary: 'Notification endpoint (OpenID4VCI 1.0 §11)',
    description: `With the credential request's access token; \`{notification_id, event, event_description?}\`. ${oauthErrors}`,
  })
  @ApiParam(tenantParameter)
  @ApiNoContentResponse({ description: 'The event is recorded.' })
  async notification(
    @Param('tenantId', TenantIdPipe) tenantId: string,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<void> {
    noStore(response);
    const call = this.callOf(tenantId, request, 'notification');
    const authorized = await this.credentials.authorize(call, 'issued');
    const body = await readJsonObject(request, response, 'invalid_notification_request');
    await this.credentials.notify(call, authorized, body);
  }

  private issuerOf(tenantId: string): string {
    return credentialIssuerOf(this.settings.PUBLIC_BASE_URL, tenantId);
  }

  private callOf(tenantId: string, request: Request, endpoint: string): ProtectedCall {
    const issuer = this.issuerOf(tenantId);
    return {
      tenantId,
      issuer,
      authorization: request.headers.authorization,
      dpop: request.headers.dpop as string | undefined,
      url: `${issuer}/${endpoint}`,
    };
  }
}

/** Tokens, nonces and credentials are never cached (RFC 6749 §5.1, OpenID4VCI 1.0 §7.2, §8.3). */
function noStore(response: Response): void {
  response.setHeader('Cache-Control', 'no-store');
}
