import { type Request, type Response } from 'express';

/** Keycloak's cookie naming a browser's root authentication session. */
const name = 'AUTH_SESSION_ID';

export function readAuthSessionCookie(request: Request): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const separator = part.indexOf('=');
    if (separator > 0 && part.slice(0, separator).trim() === name) {
      return part.slice(separator + 1).trim();
    }
  }
  return undefined;
}

/**
 * Sets the cookie as Keycloak 26 does: a session cookie on the realm's path, HttpOnly, and in a secure
 * context (https or a loopback host) Secure with SameSite=None, else SameSite=Lax.
 */
export function setAuthSessionCookie(response: Response, issuerUrl: string, value: string): void {
  const issuer = new URL(issuerUrl);
  const secure = isSecureContext(issuer);
  response.cookie(name, value, {
    path: `${issuer.pathname.replace(/\/$/, '')}/`,
    httpOnly: true,
    secure,
    sameSite: secure ? 'none' : 'lax',
  });
}

/** Keycloak's SecureContextResolver: what browsers treat as potentially trustworthy. */
function isSecureContext(url: URL): boolean {
  const host = url.hostname;
  return (
    url.protocol === 'https:' ||
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    host === '[::1]' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)
  );
}
