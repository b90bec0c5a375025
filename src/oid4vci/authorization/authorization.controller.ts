import {
  Controller,
  Get,
  HttpCode,
  Param,
  Post,
  Query,
  Req,
  Res,
  UseFilters,
} from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { type Request, type Response } from 'express';
import { Public } from '../../auth/access.decorators.js';
import { OAuthErrorFilter } from '../../common/oauth-error.js';
import { Settings } from '../../config/settings.js';
import { credentialIssuerId } from '../../tenancy/credential-issuer.js';
import { TenantIdPipe } from '../../tenancy/tenant-id.pipe.js';
import { noStore } from '../wallet/wallet.controller.js';
import { readForm } from '../wallet/wallet-body.js';
import { AuthorizationPageError } from './authorization-outcome.js';
import { AuthorizationService } from './authorization.service.js';
import { LoginCallbackService } from './login-callback.service.js';

const header = (request: Request, name: string) => {
  const value = request.headers[name];
  return typeof value === 'string' ? value : undefined;
};

/**
 * The authorization server's routes of the code flow (docs/oid4vci.md, Authorization code flow): PAR
 * answers OAuth errors; the browser's routes answer redirects, or a page while no redirect URI is
 * trusted. Wallets find them in the authorization server metadata.
 */
@ApiExcludeController()
@UseFilters(OAuthErrorFilter)
@Controller('ctrl/oid4vci/:tenantId')
export class AuthorizationController {
  constructor(
    private readonly settings: Settings,
    private readonly authorizations: AuthorizationService,
    private readonly callbacks: LoginCallbackService,
  ) {}

  @Post('par')
  @Public()
  @HttpCode(201)
  async par(
    @Param('tenantId', TenantIdPipe) tenantId: string,
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<{ request_uri: string; expires_in: number }> {
    noStore(response);
    const form = await readForm(request, response);
    return this.authorizations.par({
      tenantId,
      issuer: this.issuerOf(tenantId),
      form,
      dpop: header(request, 'dpop'),
      attestation: header(request, 'oauth-client-attestation'),
      pop: header(request, 'oauth-client-attestation-pop'),
    });
  }

  @Get('authorize')
  @Public()
  async authorize(
    @Param('tenantId', TenantIdPipe) tenantId: string,
    @Query() query: Record<string, unknown>,
    @Res() response: Response,
  ): Promise<void> {
    await answer(response, () =>
      this.authorizations.authorize(tenantId, this.issuerOf(tenantId), {
        clientId: query.client_id,
        requestUri: query.request_uri,
      }),
    );
  }

  @Get('login/callback')
  @Public()
  async callback(
    @Param('tenantId', TenantIdPipe) tenantId: string,
    @Query() query: Record<string, unknown>,
    @Res() response: Response,
  ): Promise<void> {
    await answer(response, () =>
      this.callbacks.callback(tenantId, this.issuerOf(tenantId), {
        code: query.code,
        state: query.state,
        error: query.error,
      }),
    );
  }

  private issuerOf(tenantId: string): string {
    return credentialIssuerId(this.settings.PUBLIC_BASE_URL, tenantId);
  }
}

/** A redirect (RFC 6749 §4.1.2: 303 after a GET is a 302 to every browser), or the refusal as a page. */
async function answer(response: Response, step: () => Promise<string>): Promise<void> {
  noStore(response);
  response.setHeader('Referrer-Policy', 'no-referrer');
  let location: string;
  try {
    location = await step();
  } catch (error) {
    if (!(error instanceof AuthorizationPageError)) throw error;
    response
      .status(400)
      .type('text/plain; charset=utf-8')
      .setHeader('X-Content-Type-Options', 'nosniff')
      .send(`${error.description}\n`);
    return;
  }
  response.redirect(303, location);
}
