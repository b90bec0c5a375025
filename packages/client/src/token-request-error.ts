/** The token endpoint refused a grant, or answered something that is not a token. */
export class TokenRequestError extends Error {
  override readonly name = 'TokenRequestError';

  constructor(
    /** The HTTP status of the token endpoint's answer. */
    readonly status: number,
    /** The OAuth 2.0 `error` (RFC 6749 §5.2), for example `invalid_grant`; undefined when there was none. */
    readonly error: string | undefined,
    /** The `error_description`, when the issuer gave one. */
    readonly description: string | undefined,
    /** The grant that was refused. */
    readonly grant: string,
  ) {
    super(
      `The ${grant} grant failed with ${status}${error === undefined ? '' : ` ${error}`}${
        description === undefined ? '' : `: ${description}`
      }`,
    );
  }
}
