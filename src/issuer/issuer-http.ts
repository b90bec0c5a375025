import { Catch, Inject, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import { type Request, type Response } from 'express';
import { errorPage } from './login-page.js';
import { OAuthError, sendOAuthError } from '../common/oauth-error.js';
import { Realm } from './realm.js';

/** Form fields or query parameters, each given once. */
export type Form = Record<string, string | undefined>;

/** Errors of the browser endpoints are shown as a page, not as JSON. */
export class LoginPageError extends Error {}

@Catch(OAuthError, LoginPageError)
export class IssuerErrorFilter implements ExceptionFilter {
  constructor(@Inject(Realm) private readonly realm: Realm) {}

  catch(exception: OAuthError | LoginPageError, host: ArgumentsHost): void {
    const response = host.switchToHttp().getResponse<Response>();
    if (exception instanceof LoginPageError) {
      sendHtml(response, this.realm, 400, errorPage(exception.message));
      return;
    }
    sendOAuthError(response, exception);
  }
}

/** Every page of the issuer goes out here, with the realm's headers for Keycloak's login pages. */
export function sendHtml(response: Response, realm: Realm, status: number, html: string): void {
  response.status(status).set(realm.pageHeaders).type('html').send(html);
}

/** Form fields; a field sent twice is refused as Keycloak does. */
export function readForm(request: Request): Form {
  return singleValues((request.body ?? {}) as Record<string, unknown>);
}

export function readQuery(request: Request): Form {
  return singleValues(request.query);
}

function singleValues(source: Record<string, unknown>): Form {
  const values: Form = {};
  for (const [name, value] of Object.entries(source)) {
    if (Array.isArray(value)) throw new OAuthError(400, 'invalid_request', 'duplicated parameter');
    if (typeof value === 'string') values[name] = value;
  }
  return values;
}

/** Adds parameters to a redirect URI, in the query or (response_mode=fragment) the fragment. */
export function withParameters(
  uri: string,
  parameters: Record<string, string | undefined>,
  responseMode: string | undefined,
): string {
  const encoded = new URLSearchParams(
    Object.entries(parameters).filter((entry): entry is [string, string] => entry[1] !== undefined),
  ).toString();
  if (responseMode === 'fragment') return `${uri}#${encoded}`;
  return `${uri}${uri.includes('?') ? '&' : '?'}${encoded}`;
}

/** CORS for browser clients on the origins the realm's clients allow (webOrigins). */
export function allowCors(request: Request, response: Response, realm: Realm): void {
  const origin = request.headers.origin;
  response.setHeader('Vary', 'Origin');
  if (origin === undefined) return;
  const allowed = realm.allClients().some((client) => realm.webOrigins(client).includes(origin));
  if (!allowed) return;
  response.setHeader('Access-Control-Allow-Origin', origin);
  response.setHeader('Access-Control-Allow-Credentials', 'true');
}
