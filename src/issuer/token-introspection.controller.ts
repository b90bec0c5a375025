import { Controller, HttpCode, Options, Post, Req, Res, UseFilters } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { type Request, type Response } from 'express';
import { Public } from '../auth/access.decorators.js';
import { allowCors, IssuerErrorFilter, readForm } from './issuer-http.js';
import { Realm } from './realm.js';
import { TokenIntrospection } from './token-introspection.js';

/**
 * The embedded issuer's token introspection (RFC 7662) and revocation (RFC 7009) endpoints, at
 * Keycloak's paths and with its answers (docs/auth.md, The embedded issuer).
 */
@ApiExcludeController()
@UseFilters(IssuerErrorFilter)
@Controller('auth/realms/agent-cloud/protocol/openid-connect')
export class TokenIntrospectionController {
  constructor(
    private readonly realm: Realm,
    private readonly tokens: TokenIntrospection,
  ) {}

  @Post('token/introspect')
  @Public()
  @HttpCode(200)
  introspect(
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<Record<string, unknown>> {
    response.setHeader('Cache-Control', 'no-store');
    return this.tokens.introspect(readForm(request), request.headers.authorization);
  }

  @Options('revoke')
  @Public()
  @HttpCode(200)
  preflight(@Req() request: Request, @Res({ passthrough: true }) response: Response): void {
    allowCors(request, response, this.realm);
    response.setHeader('Access-Control-Allow-Methods', 'POST, OPTIONS');
    response.setHeader('Access-Control-Allow-Headers', 'Authorization, Content-Type');
  }

  @Post('revoke')
  @Public()
  @HttpCode(200)
  async revoke(@Req() request: Request, @Res() response: Response): Promise<void> {
    allowCors(request, response, this.realm);
    await this.tokens.revoke(readForm(request), request.headers.authorization);
    // Keycloak's answer: 200 without a body or a content type.
    response.status(200).end();
  }
}
