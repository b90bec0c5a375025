import { Controller, Get, HttpCode, Param, Post, Req, Res, UseFilters } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { type Request, type Response } from 'express';
import { Public } from '../../auth/access.decorators.js';
import { OAuthErrorFilter } from '../../common/oauth-error.js';
import { TenantIdPipe } from '../../tenancy/tenant-id.pipe.js';
import { requestObjectType } from './request-object.js';
import { RequestObjectService } from './request-object.service.js';
import { ResponseEndpointService } from './response-endpoint.service.js';
import { readWalletForm } from './wallet-forms.js';

/**
 * The wallet's side of each tenant's OpenID4VP verifier (docs/oid4vp.md): the request object at
 * `request_uri` and the response endpoint at `response_uri`, public (counted per client address),
 * answering OAuth errors rather than problems. The reference is a bearer secret: logs and spans show
 * the route's pattern, not the path (src/common/request-target.ts). Wallets find these URLs in the
 * request's link, not in the API's OpenAPI document.
 */
@ApiExcludeController()
@UseFilters(OAuthErrorFilter)
@Controller('ctrl/oid4vp/:tenantId/requests/:reference')
export class VerifierWalletController {
  constructor(
    private readonly requestObjects: RequestObjectService,
    private readonly responses: ResponseEndpointService,
  ) {}

  @Get()
  @Public()
  async requestObject(
    @Param('tenantId', TenantIdPipe) tenantId: string,
    @Param('reference') reference: string,
    @Res() response: Response,
  ): Promise<void> {
    sendRequestObject(response, await this.requestObjects.requestObject(tenantId, reference));
  }

  /** `request_uri_method=post` (OpenID4VP 1.0 §5.10): the wallet may send its metadata and a nonce. */
  @Post()
  @Public()
  async requestObjectByPost(
    @Param('tenantId', TenantIdPipe) tenantId: string,
    @Param('reference') reference: string,
    @Req() request: Request,
    @Res() response: Response,
  ): Promise<void> {
    const form = await readWalletForm(request, response, 'request');
    sendRequestObject(response, await this.requestObjects.requestObject(tenantId, reference, form));
  }

  @Post('response')
  @Public()
  @HttpCode(200)
  async answer(
    @Param('tenantId', TenantIdPipe) tenantId: string,
    @Param('reference') reference: string,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<Record<string, string>> {
    response.setHeader('Cache-Control', 'no-store');
    const form = await readWalletForm(request, response, 'response');
    return this.responses.answer(tenantId, reference, form);
  }
}

/** A request object is for one wallet, once: never cached (RFC 9101 §5.2). */
function sendRequestObject(response: Response, jwt: string): void {
  response
    .status(200)
    .setHeader('Cache-Control', 'no-store')
    .type(`application/${requestObjectType}`)
    .send(Buffer.from(jwt, 'utf8'));
}
