import { createHash, randomBytes } from 'node:crypto';

/**
 * What the issuer's browser tests need of a browser: it keeps cookies (per path, as browsers do) and
 * follows no redirects, so that each hop can be looked at.
 */

export const realmPath = '/auth/realms/agent-cloud';
export const oidcPath = `${realmPath}/protocol/openid-connect`;

export interface BrowserResponse {
  status: number;
  headers: Headers;
  text: string;
  location: string | null;
}

interface StoredCookie {
  value: string;
  path: string;
}

/** Cookies by name, with the path they were set for; Max-Age=0 removes one. */
export class CookieJar {
  private readonly cookies = new Map<string, StoredCookie>();

  take(headers: Headers): void {
    for (const line of headers.getSetCookie()) {
      const [pair = '', ...attributes] = line.split(';').map((part) => part.trim());
      const separator = pair.indexOf('=');
      const name = pair.slice(0, separator);
      const path = attributes.find((attribute) => /^path=/i.test(attribute))?.slice(5) ?? '/';
      if (attributes.some((attribute) => /^max-age=(0|-\d+)$/i.test(attribute))) {
        this.cookies.delete(name);
      } else {
        this.cookies.set(name, { value: pair.slice(separator + 1), path });
      }
    }
  }

  value(name: string): string | undefined {
    return this.cookies.get(name)?.value;
  }

  /** The Cookie header a browser sends with a request to `url`. */
  header(url: string): string | undefined {
    const pathname = new URL(url).pathname;
    const sent = [...this.cookies]
      .filter(([, cookie]) => pathname.startsWith(cookie.path))
      .map(([name, cookie]) => `${name}=${cookie.value}`);
    return sent.length === 0 ? undefined : sent.join('; ');
  }
}

export class Browser {
  readonly cookies = new CookieJar();

  get(url: string): Promise<BrowserResponse> {
    return this.request(url, { method: 'GET' });
  }

  /** Submits a form as a browser does (application/x-www-form-urlencoded). */
  post(url: string, fields: [string, string][]): Promise<BrowserResponse> {
    return this.request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    });
  }

  private async request(url: string, init: RequestInit): Promise<BrowserResponse> {
    const cookie = this.cookies.header(url);
    const response = await fetch(url, {
      ...init,
      headers: { ...(init.headers as Record<string, string>), ...(cookie ? { cookie } : {}) },
      redirect: 'manual',
    });
    this.cookies.take(response.headers);
    return {
      status: response.status,
      headers: response.headers,
      text: await response.text(),
      location: response.headers.get('location'),
    };
  }
}

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export function decodeEntities(text: string): string {
  return text
    .replace(/&#(\d+);/g, (_whole, code: string) => String.fromCharCode(Number(code)))
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** What a browser takes from the login page: where the form goes and its hidden fields. */
export function loginForm(html: string): { action: string; hidden: [string, string][] } {
  const action = /<form[^>]*\saction="([^"]*)"/.exec(html)?.[1];
  if (action === undefined) throw new Error(`no form on the page: ${html}`);
  const hidden: [string, string][] = [];
  for (const [tag] of html.matchAll(/<input\b[^>]*>/g)) {
    const attributes = Object.fromEntries(
      [...tag.matchAll(/([\w-]+)="([^"]*)"/g)].map(([, name, value]) => [
        name,
        decodeEntities(value),
      ]),
    );
    if (attributes.type === 'hidden' && attributes.name !== undefined)
      hidden.push([attributes.name, attributes.value ?? '']);
  }
  return { action: decodeEntities(action), hidden };
}

/** The authorization endpoint of `issuer`, asked with these parameters. */
export function authorizeUrl(issuer: string, parameters: Record<string, string>): string {
  const url = new URL(`${issuer}/protocol/openid-connect/auth`);
  for (const [name, value] of Object.entries(parameters)) url.searchParams.set(name, value);
  return url.toString();
}

/** The authorization request of the Swagger UI (code flow, PKCE S256) for `redirectUri`. */
export function swaggerAuthorizeParameters(
  redirectUri: string,
  challenge: string,
  state: string,
): Record<string, string> {
  return {
    client_id: 'agent-client',
    response_type: 'code',
    redirect_uri: redirectUri,
    scope: 'openid',
    state,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  };
}
