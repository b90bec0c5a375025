import { Controller, Get, Post, Req, Res, UseFilters } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { type Request, type Response } from 'express';
import { Public } from '../auth/access.decorators.js';
import { authenticateClient } from './client-authentication.js';
import {
  allowCors,
  IssuerErrorFilter,
  LoginPageError,
  readForm,
  readQuery,
  sendHtml,
  withParameters,
  type Form,
} from './issuer-http.js';
import { IssuerSessions } from './issuer-sessions.js';
import { loggedOutPage } from './login-page.js';
import { OwnTokens } from './own-tokens.js';
import { Realm } from './realm.js';
import { TokenGrants } from './token-grants.js';

/** Logout, from a browser (id_token_hint, post_logout_redirect_uri) or a client's back channel. */
@ApiExcludeController()
@UseFilters(IssuerErrorFilter)
@Controller('auth/realms/agent-cloud')
export class LogoutController {
  constructor(
    private readonly realm: Realm,
    private readonly grants: TokenGrants,
    private readonly ownTokens: OwnTokens,
    private readonly sessions: IssuerSessions,
  ) {}

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
    allowCors(request, response, this.realm);
    const form = readForm(request);
    if (form.refresh_token !== undefined) {
      const client = authenticateClient(this.realm, form, request.headers.authorization);
      await this.grants.logoutWithRefreshToken(client, form.refresh_token);
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
        hint = await this.ownTokens.verify(parameters.id_token_hint, 'ID', { ignoreExpiry: true });
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
      const client = clientId === undefined ? undefined : this.realm.client(clientId);
      destination =
        client === undefined ? undefined : this.realm.verifiedPostLogoutRedirectUri(client, target);
      if (destination === undefined) throw new LoginPageError('Invalid redirect uri');
    }
    if (sessionId !== undefined) await this.sessions.end(sessionId);
    if (destination !== undefined) {
      response.redirect(302, withParameters(destination, { state: parameters.state }, undefined));
      return;
    }
    sendHtml(response, this.realm, 200, loggedOutPage());
  }
}
