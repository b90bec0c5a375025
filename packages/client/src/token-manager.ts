import { TokenRequestError } from './token-request-error.js';

/** A realm user: the seed's password grant, by default with the public client `agent-client`. */
export interface PasswordCredentials {
  username: string;
  password: string;
  /** Default `agent-client`. */
  clientId?: string;
  /** Only for a confidential client. */
  clientSecret?: string;
}

/** A machine caller: the client credentials grant of a confidential client (`agent-service`, say). */
export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
}

export type Credentials = PasswordCredentials | ClientCredentials;

export interface TokenManagerOptions {
  /** The realm's token endpoint, `{base}/auth/realms/agent-cloud/protocol/openid-connect/token`. */
  tokenUrl: string;
  credentials: Credentials;
  /** Default `globalThis.fetch`. */
  fetch?: (input: Request) => Promise<Response>;
  /** Milliseconds since the epoch; default `Date.now`. Tests move it instead of waiting. */
  now?: () => number;
  /**
   * A token that expires within this many milliseconds counts as expired (60 s, as docs/api.md says clients should), so that
   * it cannot expire on its way to the service.
   */
  renewBeforeExpiryMs?: number;
}

/** The tokens of the last grant, with their expiry on the manager's clock. */
interface TokenSet {
  accessToken: string;
  accessExpiresAt: number;
  refreshToken: string | undefined;
  /** Infinity when the issuer said nothing (`refresh_expires_in` 0, as for offline tokens). */
  refreshExpiresAt: number;
}

interface TokenEndpointAnswer {
  access_token?: unknown;
  expires_in?: unknown;
  refresh_token?: unknown;
  refresh_expires_in?: unknown;
  error?: unknown;
  error_description?: unknown;
}

export const defaultClientId = 'agent-client';

/**
 * Access tokens for calling the agent service, obtained and renewed the way the seed recommends (§5):
 * the access token is cached and reused unless it expires within 60 s; then the refresh grant renews it,
 * and the password grant (or the client credentials grant) is used again when the refresh token has
 * expired too or the issuer no longer accepts it. Concurrent callers share one token request, and a 401
 * from the API leads to exactly one renewal and one retry (`fetch`).
 */
export class TokenManager {
  private readonly fetchImpl: (input: Request) => Promise<Response>;
  private readonly now: () => number;
  private readonly renewBeforeExpiryMs: number;
  private tokens: TokenSet | undefined;
  private pending: Promise<TokenSet> | undefined;

  constructor(private readonly options: TokenManagerOptions) {
    this.fetchImpl = options.fetch ?? ((input) => globalThis.fetch(input));
    this.now = options.now ?? Date.now;
    this.renewBeforeExpiryMs = options.renewBeforeExpiryMs ?? 60_000;
  }

  /** A usable access token: the cached one, or a new one if it expires within the margin. */
  async accessToken(): Promise<string> {
    const tokens = this.tokens;
    if (tokens !== undefined && this.now() < tokens.accessExpiresAt - this.renewBeforeExpiryMs) {
      return tokens.accessToken;
    }
    return (await this.renew()).accessToken;
  }

  /**
   * A new access token after the API refused `rejected` (401): the cached token is dropped and renewed,
   * unless another caller has renewed it meanwhile, whose token is then used.
   */
  async renewAfterRejection(rejected: string): Promise<string> {
    if (this.tokens !== undefined && this.tokens.accessToken !== rejected) {
      return this.accessToken();
    }
    // Never offered again, even if renewal fails; the refresh token stays usable.
    if (this.tokens !== undefined) this.tokens = { ...this.tokens, accessExpiresAt: -Infinity };
    return (await this.renew()).accessToken;
  }

  /**
   * Sends the request with `Authorization: Bearer <access token>`; on a 401, renews the token once and
   * sends the request once more. The second answer is returned whatever it is.
   */
  async fetch(request: Request): Promise<Response> {
    const retry = request.clone();
    const token = await this.accessToken();
    const response = await this.fetchImpl(withBearer(request, token));
    if (response.status !== 401) return response;
    // The body of the refused answer is not needed; release its connection.
    await response.body?.cancel();
    return this.fetchImpl(withBearer(retry, await this.renewAfterRejection(token)));
  }

  /** Forgets the tokens: the next call starts with the primary grant. */
  clear(): void {
    this.tokens = undefined;
  }

  /** One token request at a time: everyone who needs a token meanwhile waits for this one. */
  private renew(): Promise<TokenSet> {
    this.pending ??= this.obtain().finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  private async obtain(): Promise<TokenSet> {
    const previous = this.tokens;
    if (
      previous?.refreshToken !== undefined &&
      this.now() < previous.refreshExpiresAt - this.renewBeforeExpiryMs
    ) {
      try {
        return await this.grant('refresh_token', { refresh_token: previous.refreshToken });
      } catch (error) {
        // The session ended early (logout, idle timeout on the issuer's clock, revocation): log in again.
        if (!(error instanceof TokenRequestError && error.error === 'invalid_grant')) throw error;
        this.tokens = undefined;
      }
    }
    const credentials = this.options.credentials;
    return 'username' in credentials
      ? this.grant('password', { username: credentials.username, password: credentials.password })
      : this.grant('client_credentials', {});
  }

  private async grant(grantType: string, fields: Record<string, string>): Promise<TokenSet> {
    const { clientId, clientSecret } = clientOf(this.options.credentials);
    const form = new URLSearchParams({ grant_type: grantType, client_id: clientId, ...fields });
    if (clientSecret !== undefined) form.set('client_secret', clientSecret);
    // Lifetimes count from before the request was sent, so that they never end later than the issuer's.
    const requestedAt = this.now();
    const response = await this.fetchImpl(
      new Request(this.options.tokenUrl, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body: form.toString(),
      }),
    );
    const text = await response.text();
    let answer: TokenEndpointAnswer = {};
    try {
      answer = JSON.parse(text) as TokenEndpointAnswer;
    } catch {
      // Not JSON (a proxy's error page): reported below with the status.
    }
    if (
      !response.ok ||
      typeof answer.access_token !== 'string' ||
      typeof answer.expires_in !== 'number'
    ) {
      throw new TokenRequestError(
        response.status,
        typeof answer.error === 'string' ? answer.error : undefined,
        typeof answer.error_description === 'string' ? answer.error_description : undefined,
        grantType,
      );
    }
    const refreshToken =
      typeof answer.refresh_token === 'string' ? answer.refresh_token : undefined;
    const refreshExpiresIn =
      typeof answer.refresh_expires_in === 'number' ? answer.refresh_expires_in : 0;
    const tokens: TokenSet = {
      accessToken: answer.access_token,
      accessExpiresAt: requestedAt + answer.expires_in * 1000,
      refreshToken,
      refreshExpiresAt: refreshExpiresIn > 0 ? requestedAt + refreshExpiresIn * 1000 : Infinity,
    };
    this.tokens = tokens;
    return tokens;
  }
}

function clientOf(credentials: Credentials): { clientId: string; clientSecret?: string } {
  if ('username' in credentials) {
    return {
      clientId: credentials.clientId ?? defaultClientId,
      clientSecret: credentials.clientSecret,
    };
  }
  return { clientId: credentials.clientId, clientSecret: credentials.clientSecret };
}

function withBearer(request: Request, token: string): Request {
  const headers = new Headers(request.headers);
  headers.set('authorization', `Bearer ${token}`);
  return new Request(request, { headers });
}
