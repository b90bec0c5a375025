import { Catch, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import { type Response } from 'express';

/**
 * An error as OAuth answers it (RFC 6749 §5.2, RFC 6750 §3.1): `{error, error_description}`, never a
 * problem, so that OAuth clients can read it. The wallet endpoints (OpenID4VCI 1.0 §8.3.1.2,
 * OpenID4VP) and the embedded issuer (as Keycloak answers) throw it; each has its filter.
 */
export class OAuthError extends Error {
  constructor(
    /** 200 too: the revocation endpoint answers a token it cannot use so (RFC 7009 §2.2, Keycloak). */
    readonly status: 200 | 400 | 401 | 403 | 404,
    readonly error: string,
    readonly description: string,
    /** For 401s: the `WWW-Authenticate` challenge (RFC 6750 §3, RFC 9449 §7.1). */
    readonly challenge?: string,
  ) {
    super(`${error}: ${description}`);
    this.name = 'OAuthError';
  }
}

export const invalidRequest = (description: string) =>
  new OAuthError(400, 'invalid_request', description);
export const invalidGrant = (description: string) =>
  new OAuthError(400, 'invalid_grant', description);
export const invalidCredentialRequest = (description: string) =>
  new OAuthError(400, 'invalid_credential_request', description);
export const invalidProof = (description: string) =>
  new OAuthError(400, 'invalid_proof', description);

/** A 401 of a protected endpoint, challenging with the scheme the wallet used (RFC 6750 §3.1). */
export function invalidToken(
  scheme: 'Bearer' | 'DPoP',
  description: string,
  error: 'invalid_token' | 'invalid_dpop_proof' = 'invalid_token',
): OAuthError {
  const algs = scheme === 'DPoP' ? ' algs="ES256 EdDSA",' : '';
  return new OAuthError(
    401,
    error,
    description,
    `${scheme}${algs} error="${error}", error_description="${description}"`,
  );
}

/** An OAuth error answer (RFC 6749 §5.2): `{error, error_description}`, its challenge, never cached. */
export function sendOAuthError(
  response: Response,
  answer: Pick<OAuthError, 'status' | 'error' | 'description' | 'challenge'>,
): void {
  if (answer.challenge !== undefined) response.setHeader('WWW-Authenticate', answer.challenge);
  response.setHeader('Cache-Control', 'no-store');
  response
    .status(answer.status)
    .json({ error: answer.error, error_description: answer.description });
}

/** The wallet endpoints' filter: their OAuth errors as OAuth answers them. */
@Catch(OAuthError)
export class OAuthErrorFilter implements ExceptionFilter {
  catch(exception: OAuthError, host: ArgumentsHost): void {
    sendOAuthError(host.switchToHttp().getResponse<Response>(), exception);
  }
}
