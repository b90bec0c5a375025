import { type IssuedTokens } from './token-factory.js';

/** The token endpoint's answer, fields in Keycloak's order. */
export interface TokenResponse {
  access_token: string;
  expires_in: number;
  refresh_expires_in: number;
  refresh_token?: string;
  token_type: 'Bearer';
  id_token?: string;
  'not-before-policy': 0;
  session_state?: string;
  scope: string;
}

/** The answer to a grant that belongs to a session, lifetimes counted from `now` (seconds). */
export function sessionTokenResponse(
  issued: IssuedTokens,
  sessionId: string,
  scope: string,
  now: number,
): TokenResponse {
  const response: TokenResponse = {
    access_token: issued.accessToken,
    expires_in: issued.accessExpiresAt - now,
    refresh_expires_in: 0,
    refresh_token: issued.refreshToken,
    token_type: 'Bearer',
    'not-before-policy': 0,
    session_state: sessionId,
    scope,
  };
  if (issued.refreshToken !== undefined) {
    response.refresh_expires_in = expiryOf(issued.refreshToken) - now;
  }
  // Keycloak's field order: the id_token goes after token_type.
  return issued.idToken === undefined
    ? response
    : {
        access_token: response.access_token,
        expires_in: response.expires_in,
        refresh_expires_in: response.refresh_expires_in,
        refresh_token: response.refresh_token,
        token_type: 'Bearer',
        id_token: issued.idToken,
        'not-before-policy': 0,
        session_state: sessionId,
        scope,
      };
}

function expiryOf(token: string): number {
  const payload = JSON.parse(
    Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8'),
  ) as { exp: number };
  return payload.exp;
}
