import { Controller, Get, HttpCode, Options, Post, Req, Res, UseFilters } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { type Request, type Response } from 'express';
import { Public } from '../auth/access.decorators.js';
import { requestIdOf } from '../common/logging.js';
import { allowCors, IssuerErrorFilter, readForm } from './issuer-http.js';
import { IssuerSessions } from './issuer-sessions.js';
import { OAuthError } from '../common/oauth-error.js';
import { OwnTokens } from './own-tokens.js';
import { Realm } from './realm.js';
import { RevokedTokens } from './revoked-tokens.js';
import { TokenGrants } from './token-grants.js';
import { type TokenResponse } from './token-response.js';

const invalidTokenChallenge =
  'Bearer realm="agent-cloud", error="invalid_token", error_description="Token verification failed"';

/**
 * The embedded Keycloak-compatible issuer's back-channel endpoints (local mode and tests only): token
 * and userinfo on the app's own origin under /auth, answering as Keycloak 26 does (docs/auth.md).
 */
@ApiExcludeController()
@UseFilters(IssuerErrorFilter)
@Controller('auth/realms/agent-cloud')
export class TokenController {
  constructor(
    private readonly realm: Realm,
    private readonly grants: TokenGrants,
    private readonly ownTokens: OwnTokens,
    private readonly sessions: IssuerSessions,
    private readonly revoked: RevokedTokens,
  ) {}

  @Options([
    'protocol/openid-connect/token',
    'protocol/openid-connect/userinfo',
    'protocol/openid-connect/logout',
  ])
  @Public()
  @HttpCode(200)
  preflight(@Req() request: Request, @Res({ passthrough: true }) response: Response): void {
    allowCors(request, response, this.realm);
    response.setHeader('Access-Control-Allow-Methods', 'GET, POST, OPTIONS');
    response.setHeader('Access-Control-Allow-Headers', 'Authorization, Content-Type');
    response.setHeader('Access-Control-Max-Age', '3600');
  }

  @Post('protocol/openid-connect/token')
  @Public()
  @HttpCode(200)
  async token(
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<TokenResponse> {
    allowCors(request, response, this.realm);
    response.setHeader('Cache-Control', 'no-store');
    response.setHeader('Pragma', 'no-cache');
    return this.grants.token(
      readForm(request),
      request.headers.authorization,
      request.ip ?? '127.0.0.1',
      requestIdOf(request),
    );
  }

  @Get('protocol/openid-connect/userinfo')
  @Public()
  userinfoGet(
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<Record<string, unknown>> {
    return this.userinfo(request, response);
  }

  @Post('protocol/openid-connect/userinfo')
  @Public()
  @HttpCode(200)
  userinfoPost(
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<Record<string, unknown>> {
    return this.userinfo(request, response);
  }

  private async userinfo(request: Request, response: Response): Promise<Record<string, unknown>> {
    allowCors(request, response, this.realm);
    const header = request.headers.authorization;
    const token =
      header?.startsWith('Bearer ') === true
        ? header.slice(7).trim()
        : readForm(request).access_token;
    if (token === undefined || token === '') {
      throw new OAuthError(
        401,
        'invalid_request',
        'Token not provided',
        'Bearer realm="agent-cloud"',
      );
    }
    let payload;
    try {
      payload = await this.ownTokens.verify(token, 'Bearer');
    } catch {
      throw new OAuthError(
        401,
        'invalid_token',
        'Token verification failed',
        invalidTokenChallenge,
      );
    }
    // Revoked at the revocation endpoint: refused as Keycloak's TokenRevocationCheck refuses it.
    if (await this.revoked.isRevoked(payload.jti)) {
      throw new OAuthError(
        401,
        'invalid_token',
        'Token verification failed',
        invalidTokenChallenge,
      );
    }
    if (payload.sid !== undefined && !(await this.sessions.isActive(payload.sid))) {
      throw new OAuthError(
        401,
        'invalid_token',
        "User session not found or doesn't have client attached on it",
        invalidTokenChallenge,
      );
    }
    return this.ownTokens.userinfo(payload);
  }
}
