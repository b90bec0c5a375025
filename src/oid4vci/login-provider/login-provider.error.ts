/**
 * Why a person's login at the provider did not give their claims, for the caller to answer as an
 * OAuth error:
 * - `unreachable`: no (complete) answer in time, no connection, or an HTTP 5xx: the provider is away
 *   (`temporarily_unavailable`);
 * - `code_refused`: the token endpoint refused the code exchange (a 4xx such as `invalid_grant`): the
 *   login does not count (`access_denied`);
 * - `invalid_answer`: an answer that is not what OpenID Connect says it is (no JSON, no `id_token`,
 *   too large, a discovery document naming another issuer) (`server_error`);
 * - `id_token_refused`: the ID token failed a check (signature, `iss`, `aud`, `azp`, `exp`, `nonce`),
 *   or userinfo named another `sub` (`access_denied`).
 */
export type LoginProviderFailure =
  'unreachable' | 'code_refused' | 'invalid_answer' | 'id_token_refused';

/** The login could not be completed; the message says why, for the log, never for the person. */
export class LoginProviderError extends Error {
  override name = 'LoginProviderError';

  constructor(
    readonly reason: LoginProviderFailure,
    message: string,
  ) {
    super(message);
  }
}
