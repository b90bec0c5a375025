import { Controller, HttpCode, Param, Post, Req, Res, UseFilters } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { type Request, type Response } from 'express';
import { Public } from '../../auth/access.decorators.js';
import { Settings } from '../../config/settings.js';
import { credentialIssuerId } from '../../tenancy/credential-issuer.js';
import { TenantIdPipe } from '../../tenancy/tenant-id.pipe.js';
import {
  CredentialEndpointService,
  type CredentialResponse,
  type ProtectedCall,
} from './credential-endpoint.service.js';
import { NoncesService } from './nonces.service.js';
import { DpopNonces } from './dpop-nonces.js';
import {
  attestationHeader,
  attestationPopHeader,
} from '../../wallet-providers/client-attestations.service.js';
import { TokenEndpointService, type TokenResponse } from './token-endpoint.service.js';
import { readForm, readJsonObject } from './wallet-body.js';
import { OAuthErrorFilter } from '../../common/oauth-error.js';

/**
 * The wallet's side of each tenant's OpenID4VCI issuer (docs/oid4vci.md): public routes under the
 * credential issuer identifier, answering OAuth errors rather than problems; the request body is read
 * here, after the rate limit, with the wallet endpoints' own bounds. Wallets find them in the issuer's
 * metadata, not in the API's OpenAPI document (docs/oid4vci.md describes them).
 */
@ApiExcludeController()
@UseFilters(OAuthErrorFilter)
@Controller('ctrl/oid4vci/:tenantId')
export class WalletController {
  constructor(
    private readonly settings: Settings,
    private readonly tokens: TokenEndpointService,
    private readonly nonces: NoncesService,
    private readonly credentials: CredentialEndpointService,
    private readonly dpopNonces: DpopNonces,
  ) {}

  @Post('token')
  @Public()
  @HttpCode(200)
  async token(
    @Param('tenantId', TenantIdPipe) tenantId: string,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<TokenResponse> {
    noStore(response);
    // On every answer, the refusal that asks for it included (RFC 9449 §8).
    if (this.dpopNonces.required)
      response.setHeader('DPoP-Nonce', this.dpopNonces.current(tenantId));
    const form = await readForm(request, response);
    const issuer = this.issuerOf(tenantId);
    return this.tokens.token({
      tenantId,
      form,
      dpop: request.headers.dpop as string | undefined,
      url: `${issuer}/token`,
      issuer,
      attestation: request.headers[attestationHeader] as string | undefined,
      attestationPop: request.headers[attestationPopHeader] as string | undefined,
    });
  }

  @Post('nonce')
  @Public()
  @HttpCode(200)
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
    return credentialIssuerId(this.settings.PUBLIC_BASE_URL, tenantId);
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
export function noStore(response: Response): void {
  response.setHeader('Cache-Control', 'no-store');
}
