import { type OutboundPolicy, urlProblem } from '../../common/outbound.js';
import { LoginProviderError } from './login-provider.error.js';
import { type Json } from './provider-http.js';

/** What the client needs of an OpenID provider (OpenID Connect Discovery 1.0 §3). */
export interface ProviderMetadata {
  issuer: string;
  /** Where the person's browser goes. */
  authorizationEndpoint: string;
  /** Back channel: the code exchange, the keys, the person's claims. */
  tokenEndpoint: string;
  jwksUri: string;
  userinfoEndpoint?: string;
  /** client_secret_basic unless the provider offers only client_secret_post (RFC 6749 §2.3.1). */
  tokenAuthMethod: 'client_secret_basic' | 'client_secret_post';
}

/** `{issuer}/.well-known/openid-configuration`, a trailing `/` of the issuer dropped (Discovery §4). */
export function discoveryUrl(issuer: string): string {
  return `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
}

/**
 * The discovery document's endpoints, checked: it names exactly the issuer asked for (Discovery §4.3),
 * its back-channel endpoints pass the outbound policy, and it offers the code flow, PKCE S256 and a
 * client authentication this client speaks, as far as it says. Otherwise `invalid_answer`, naming why.
 */
export function metadataOf(
  document: Json,
  issuer: string,
  policy: OutboundPolicy,
): ProviderMetadata {
  const refuse = (why: string) => {
    throw new LoginProviderError('invalid_answer', `the discovery document ${why}`);
  };
  if (document.issuer !== issuer) refuse(`names another issuer than '${issuer}'`);
  const endpoint = (name: string, backChannel: boolean): string => {
    const value = document[name];
    if (typeof value !== 'string' || !URL.canParse(value)) return refuse(`has no URL ${name}`);
    const problem = backChannel
      ? urlProblem(value, policy)
      : /^https?:$/.test(new URL(value).protocol)
        ? undefined
        : 'is not http(s)';
    return problem === undefined ? value : refuse(`has a ${name} that is refused: ${problem}`);
  };
  const listed = (name: string): unknown[] | undefined => {
    const value = document[name];
    return Array.isArray(value) ? value : undefined;
  };
  if (listed('response_types_supported')?.includes('code') === false) {
    refuse('does not offer response_type code');
  }
  if (listed('code_challenge_methods_supported')?.includes('S256') === false) {
    refuse('does not offer PKCE with S256');
  }
  const methods = listed('token_endpoint_auth_methods_supported') ?? ['client_secret_basic'];
  const tokenAuthMethod = methods.includes('client_secret_basic')
    ? 'client_secret_basic'
    : methods.includes('client_secret_post')
      ? 'client_secret_post'
      : refuse('offers neither client_secret_basic nor client_secret_post');
  const userinfo =
    document.userinfo_endpoint === undefined ? undefined : endpoint('userinfo_endpoint', true);
  return {
    issuer,
    authorizationEndpoint: endpoint('authorization_endpoint', false),
    tokenEndpoint: endpoint('token_endpoint', true),
    jwksUri: endpoint('jwks_uri', true),
    ...(userinfo === undefined ? {} : { userinfoEndpoint: userinfo }),
    tokenAuthMethod,
  };
}
