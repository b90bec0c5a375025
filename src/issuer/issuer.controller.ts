import {
  Controller,
  Get,
  Header,
  HttpCode,
  Inject,
  Options,
  Post,
  Req,
  Res,
  UseFilters,
} from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { type Request, type Response } from 'express';
import { Public } from '../auth/access.decorators.js';
import { requestIdOf } from '../common/logging.js';
import { authenticateClient } from './client-authentication.js';
import {
  IssuerErrorFilter,
  LoginPageError,
  readForm,
  readQuery,
  sendHtml,
  withParameters,
} from './issuer-http.js';
import { IssuerService, type Form, type TokenResponse } from './issuer.service.js';
import { loggedOutPage } from './login-page.js';
import { OAuthError } from './oauth-error.js';

/**
 * The embedded Keycloak-compatible issuer (local mode and tests only): the realm's OIDC endpoints on the
 * app's own origin under /auth, answering as Keycloak 26 does (keycloak-compat.md).
 */
@ApiExcludeController()
@UseFilters(IssuerErrorFilter)
@Controller('auth/realms/agent-cloud')
export class IssuerController {
  constructor(@Inject(IssuerService) private readonly issuer: IssuerService) {}

  @Get('.well-known/openid-configuration')
  @Public()
  discovery(): Record<string, unknown> {
    const base = `${this.issuer.issuerUrl}/protocol/openid-connect`;
    return {
      issuer: this.issuer.issuerUrl,
      authorization_endpoint: `${base}/auth`,
      token_endpoint: `${base}/token`,
      userinfo_endpoint: `${base}/userinfo`,
      end_session_endpoint: `${base}/logout`,
      frontchannel_logout_session_supported: true,
      frontchannel_logout_supported: true,
      jwks_uri: `${base}/certs`,
      grant_types_supported: [
        'authorization_code',
        'client_credentials',
        'password',
        'refresh_token',
      ],
      acr_values_supported: ['0', '1'],
      response_types_supported: ['code'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256'],
      userinfo_signing_alg_values_supported: ['RS256', 'none'],
      response_modes_supported: ['query', 'fragment'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      claims_supported: [
        'aud',
        'sub',
        'iss',
        'auth_time',
        'name',
        'given_name',
        'family_name',
        'preferred_username',
        'email',
        'acr',
      ],
      claim_types_supported: ['normal'],
      claims_parameter_supported: true,
      scopes_supported: [
        'openid',
        'email',
        'profile',
        'roles',
        'web-origins',
        'acr',
        'basic',
        'offline_access',
      ],
      request_parameter_supported: false,
      request_uri_parameter_supported: false,
      code_challenge_methods_supported: ['plain', 'S256'],
      tls_client_certificate_bound_access_tokens: false,
    };
  }

  @Get('protocol/openid-connect/certs')
  @Public()
  @Header('Cache-Control', 'no-cache')
  certs(): { keys: unknown[] } {
    return { keys: [this.issuer.keys.publicJwk] };
  }

  @Options([
    'protocol/openid-connect/token',
    'protocol/openid-connect/userinfo',
    'protocol/openid-connect/logout',
  ])
  @Public()
  @HttpCode(200)
  preflight(@Req() request: Request, @Res({ passthrough: true }) response: Response): void {
    this.cors(request, response);
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
    this.cors(request, response);
    response.setHeader('Cache-Control', 'no-store');
    response.setHeader('Pragma', 'no-cache');
    const form = readForm(request);
    return this.issuer.token(
      form,
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

  /** Browser logout: ends the session named by id_token_hint and returns to an allowed URI. */
  @Get('protocol/openid-connect/logout')
  @Public()
  async logoutGet(@Req() request: Request, @Res() response: Response): Promise<void> {
    await this.browserLogout(readQuery(request), response);
  }

  /** Back-channel logout (client_id + refresh_token: 204), or a form post of the browser logout. */
  @Post('protocol/openid-connect/logout')
  @Public()
  async logoutPost(@Req() request: Request, @Res() response: Response): Promise<void> {
    this.cors(request, response);
    const form = readForm(request);
    if (form.refresh_token !== undefined) {
      const client = authenticateClient(this.issuer.realm, form, request.headers.authorization);
      await this.issuer.logoutWithRefreshToken(client, form.refresh_token);
      response.status(204).end();
      return;
    }
    await this.browserLogout(form, response);
  }

  private async browserLogout(parameters: Form, response: Response): Promise<void> {
    let clientId = parameters.client_id;
    let sessionId: string | undefined;
    if (parameters.id_token_hint !== undefined) {
      let hint;
      try {
        hint = await this.issuer.verifyOwnToken(parameters.id_token_hint, 'ID', {
          ignoreExpiry: true,
        });
      } catch {
        throw new LoginPageError('Invalid parameter: id_token_hint');
      }
      clientId ??= typeof hint.azp === 'string' ? hint.azp : undefined;
      sessionId = typeof hint.sid === 'string' ? hint.sid : undefined;
    }
    // Check where the browser would go before ending anything, as Keycloak does.
    const target = parameters.post_logout_redirect_uri;
    let destination: string | undefined;
    if (target !== undefined) {
      const client = clientId === undefined ? undefined : this.issuer.realm.client(clientId);
      destination =
        client === undefined
          ? undefined
          : this.issuer.realm.verifiedPostLogoutRedirectUri(client, target);
      if (destination === undefined) throw new LoginPageError('Invalid redirect uri');
    }
    if (sessionId !== undefined) await this.issuer.endSession(sessionId);
    if (destination !== undefined) {
      response.redirect(302, withParameters(destination, { state: parameters.state }, undefined));
      return;
    }
    sendHtml(response, this.issuer.realm, 200, loggedOutPage());
  }

  private async userinfo(request: Request, response: Response): Promise<Record<string, unknown>> {
    this.cors(request, response);
    const challenge =
      'Bearer realm="agent-cloud", error="invalid_token", error_description="Token verification failed"';
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
      payload = await this.issuer.verifyOwnToken(token, 'Bearer');
    } catch {
      throw new OAuthError(401, 'invalid_token', 'Token verification failed', challenge);
    }
    if (payload.sid !== undefined && !(await this.issuer.sessionIsActive(payload.sid))) {
      throw new OAuthError(
        401,
        'invalid_token',
        "User session not found or doesn't have client attached on it",
        challenge,
      );
    }
    return this.issuer.userinfo(payload);
  }

  /** CORS for browser clients on the origins the realm's clients allow (webOrigins). */
  private cors(request: Request, response: Response): void {
    const origin = request.headers.origin;
    response.setHeader('Vary', 'Origin');
    if (origin === undefined || !this.issuer.allowedOrigins().includes(origin)) return;
    response.setHeader('Access-Control-Allow-Origin', origin);
    response.setHeader('Access-Control-Allow-Credentials', 'true');
  }
}
