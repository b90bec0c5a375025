import { Controller, Get, Inject, Post, Req, Res, UseFilters } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { type Request, type Response } from 'express';
import { Public } from '../auth/access.decorators.js';
import { requestIdOf } from '../common/logging.js';
import { readAuthSessionCookie, setAuthSessionCookie } from './auth-session-cookie.js';
import { AuthSessionStore, type PendingLogin } from './auth-session-store.js';
import {
  IssuerErrorFilter,
  LoginPageError,
  readForm,
  readQuery,
  sendHtml,
  withParameters,
  type Form,
} from './issuer-http.js';
import { ISSUER_URL } from './issuer-url.js';
import { IssuerSessions } from './issuer-sessions.js';
import { errorPage, loginPage, pageExpiredPage } from './login-page.js';
import { OAuthError } from '../common/oauth-error.js';
import { PasswordLogin } from './password-login.js';
import { Realm } from './realm.js';
import { parseAuthorizationRequest } from './authorization-request.js';

/** The id of the username and password form in the browser flow (Keycloak makes one per realm). */
const loginExecution = '6f3f1a52-8d4b-4c1e-9a7f-2b5e0c9d41a8';

/** The authorization request parameters a login page keeps for its form. */
const requestParameters = [
  'client_id',
  'redirect_uri',
  'response_type',
  'response_mode',
  'scope',
  'state',
  'nonce',
  'code_challenge',
  'code_challenge_method',
];

const cookieNotFound = 'Cookie not found. Please make sure cookies are enabled in your browser.';
const actionExpired = 'Action expired. Please continue with login now.';

/**
 * The browser side of the code flow: the authorization endpoint shows the login page, whose form is
 * bound to that authorization request by the AUTH_SESSION_ID cookie, the tab and a one-time session
 * code, and answers as Keycloak's LoginActionsService when they do not match.
 */
@ApiExcludeController()
@UseFilters(IssuerErrorFilter)
@Controller('auth/realms/agent-cloud')
export class BrowserLoginController {
  constructor(
    private readonly realm: Realm,
    private readonly sessions: IssuerSessions,
    private readonly passwordLogin: PasswordLogin,
    @Inject(AuthSessionStore) private readonly logins: AuthSessionStore,
    @Inject(ISSUER_URL) private readonly issuerUrl: string,
  ) {}

  @Get('protocol/openid-connect/auth')
  @Public()
  async authorize(@Req() request: Request, @Res() response: Response): Promise<void> {
    const query = readQuery(request);
    const outcome = this.authorizationRequest(query);
    if ('redirectError' in outcome) {
      const { redirectUri, error, description, state } = outcome.redirectError;
      response.redirect(
        302,
        withParameters(
          redirectUri,
          { error, error_description: description, state },
          query.response_mode,
        ),
      );
      return;
    }
    const kept = Object.fromEntries(
      requestParameters.flatMap((name) => (query[name] === undefined ? [] : [[name, query[name]]])),
    ) as Record<string, string>;
    const started = await this.logins.start(
      readAuthSessionCookie(request),
      outcome.client.clientId,
      kept,
    );
    if (started.cookieIsNew) setAuthSessionCookie(response, this.issuerUrl, started.cookie);
    this.send(response, 200, this.renderLogin(outcome.client.clientId, started));
  }

  @Post('login-actions/authenticate')
  @Public()
  async authenticate(@Req() request: Request, @Res() response: Response): Promise<void> {
    const query = readQuery(request);
    const form = readForm(request);
    const login = await this.logins.find(
      readAuthSessionCookie(request),
      query.tab_id,
      query.client_id,
    );
    if (login === undefined) {
      this.send(response, 400, errorPage(cookieNotFound));
      return;
    }
    const sessionCode = await this.logins.takeCode(login, query.session_code);
    if (query.execution !== loginExecution) {
      this.send(response, 200, pageExpiredPage(this.restartUrl(login)));
      return;
    }
    if (sessionCode === undefined) {
      // A replayed or outdated form: Keycloak shows the current form again.
      const renewed = { tabId: login.tabId, sessionCode: await this.logins.renewCode(login) };
      this.send(response, 200, this.renderLogin(login.clientId, renewed, { error: actionExpired }));
      return;
    }
    const outcome = this.authorizationRequest(login.request);
    if ('redirectError' in outcome) throw new LoginPageError(outcome.redirectError.description);
    let user;
    try {
      user = await this.passwordLogin.authenticate({
        username: form.username ?? '',
        password: form.password ?? '',
        channel: 'login-form',
        clientAddress: request.ip ?? '127.0.0.1',
        requestId: requestIdOf(request),
      });
    } catch (error) {
      if (!(error instanceof OAuthError)) throw error;
      const page = this.renderLogin(
        login.clientId,
        { tabId: login.tabId, sessionCode },
        { username: form.username, error: loginFailure(error) },
      );
      this.send(response, 200, page);
      return;
    }
    await this.logins.finish(login);
    const { code, sessionId } = await this.sessions.issueCode(outcome, user, requestIdOf(request));
    response.redirect(
      302,
      withParameters(
        outcome.redirectUri,
        { state: outcome.state, session_state: sessionId, iss: this.issuerUrl, code },
        login.request.response_mode,
      ),
    );
  }

  private send(response: Response, status: number, html: string): void {
    sendHtml(response, this.realm, status, html);
  }

  private authorizationRequest(parameters: Form) {
    try {
      return parseAuthorizationRequest(this.realm, parameters);
    } catch (error) {
      if (error instanceof OAuthError) throw new LoginPageError(error.description);
      throw error;
    }
  }

  private renderLogin(
    clientId: string,
    page: { tabId: string; sessionCode: string },
    shown: { username?: string; error?: string } = {},
  ): string {
    const action = new URL(`${this.issuerUrl}/login-actions/authenticate`);
    action.searchParams.set('session_code', page.sessionCode);
    action.searchParams.set('execution', loginExecution);
    action.searchParams.set('client_id', clientId);
    action.searchParams.set('tab_id', page.tabId);
    return loginPage({ realmDisplayName: 'Agent Cloud', action: action.toString(), ...shown });
  }

  /** The authorization request of the page again, which starts a new login page. */
  private restartUrl(login: PendingLogin): string {
    return `${this.issuerUrl}/protocol/openid-connect/auth?${new URLSearchParams(login.request).toString()}`;
  }
}

/**
 * Keycloak's words on its login form for a refused sign-in. A locked-out user gets
 * accountTemporarilyDisabledMessage or accountPermanentlyDisabledMessage, which read "Invalid username
 * or password." in Keycloak's English messages so that the lockout is not revealed.
 */
function loginFailure(error: OAuthError): string {
  switch (error.description) {
    case 'Account disabled':
      return 'Account is disabled, contact your administrator.';
    case 'Account is not fully set up':
      return 'Account is not fully set up. Contact your administrator.';
    default:
      return 'Invalid username or password.';
  }
}
