import { type Form } from './issuer-http.js';
import { OAuthError } from '../common/oauth-error.js';
import { pkceValuePattern } from './pkce.js';
import { type RealmClient } from './realm-file.js';
import { type Realm } from './realm.js';

export interface AuthorizationRequest {
  client: RealmClient;
  /** Where the browser goes: the verified, normalised redirect_uri. */
  redirectUri: string;
  /** redirect_uri as sent, which the code exchange must repeat (Keycloak compares the parameter). */
  redirectUriParam: string;
  scope: string;
  state?: string;
  nonce?: string;
  codeChallenge?: string;
  codeChallengeMethod?: string;
}

/** A request the issuer answers by redirecting back to the client with an error. */
export interface AuthorizationRedirectError {
  redirectError: { redirectUri: string; error: string; description: string; state?: string };
}

/**
 * Validates an authorization request (the login page's parameters) in Keycloak's order. Throws when
 * there is no client or redirect URI to send an error back to: the browser then gets the error page.
 */
export function parseAuthorizationRequest(
  realm: Realm,
  query: Form,
): AuthorizationRequest | AuthorizationRedirectError {
  const client = realm.client(query.client_id ?? '');
  if (client === undefined) throw new OAuthError(400, 'invalid_request', 'Client not found.');
  const redirectUriParam = query.redirect_uri;
  const redirectUri =
    redirectUriParam === undefined
      ? undefined
      : realm.verifiedRedirectUri(client, redirectUriParam);
  if (redirectUriParam === undefined || redirectUri === undefined) {
    // Never redirect to an unregistered URI: that would make the issuer an open redirect.
    throw new OAuthError(400, 'invalid_request', 'Invalid parameter: redirect_uri');
  }
  const fail = (error: string, description: string) => ({
    redirectError: { redirectUri, error, description, state: query.state },
  });
  if (client.standardFlowEnabled === false)
    return fail(
      'unauthorized_client',
      'Client is not allowed to initiate browser login with given response_type. Standard flow is disabled for the client.',
    );
  if (query.response_type !== 'code')
    return fail(
      'unsupported_response_type',
      'Client is not allowed to initiate browser login with given response_type.',
    );
  const requiredMethod = client.attributes?.['pkce.code.challenge.method'];
  const method = query.code_challenge_method;
  const challenge = query.code_challenge;
  if (requiredMethod !== undefined && requiredMethod !== '') {
    if (method === undefined || method === '')
      return fail('invalid_request', 'Missing parameter: code_challenge_method');
    if (method !== requiredMethod)
      return fail(
        'invalid_request',
        'Invalid parameter: code challenge method is not configured one',
      );
  }
  if (challenge !== undefined && challenge !== '' && !pkceValuePattern.test(challenge)) {
    return fail('invalid_request', 'Invalid parameter: code_challenge');
  }
  if (method !== undefined && method !== '' && (challenge === undefined || challenge === '')) {
    return fail('invalid_request', 'Missing parameter: code_challenge');
  }
  if (method !== undefined && method !== '' && method !== 'S256' && method !== 'plain') {
    return fail('invalid_request', 'Invalid parameter: code_challenge_method');
  }
  return {
    client,
    redirectUri,
    redirectUriParam,
    scope: realm.grantedScope(query.scope),
    state: query.state,
    nonce: query.nonce,
    codeChallenge: challenge === '' ? undefined : challenge,
    codeChallengeMethod:
      challenge === undefined || challenge === '' ? undefined : (method ?? 'plain'),
  };
}
