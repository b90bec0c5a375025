import { Inject, Injectable } from '@nestjs/common';
import { type JWTPayload } from 'jose';
import { CLOCK, type Clock } from '../../common/clock.js';
import { verifiedIdToken, UnknownKeyError, type IdTokenExpectations } from './id-token.js';
import { LoginProviderError } from './login-provider.error.js';
import { LoginProvidersService, type ResolvedLoginProvider } from './login-providers.service.js';
import { ProviderDocuments } from './provider-documents.js';
import { jsonObjectOf, providerRequest, type Json } from './provider-http.js';
import { type ProviderMetadata } from './provider-metadata.js';

/** The ID token's mechanics, not facts about the person: left out of the claims `finish` answers. */
const tokenMechanics = [
  'aud',
  'exp',
  'iat',
  'nbf',
  'nonce',
  'at_hash',
  'c_hash',
  'azp',
  'jti',
  'typ',
  'sid',
  'session_state',
  'auth_time',
  'acr',
  'amr',
];

/**
 * The OpenID Connect relying party of a tenant's issuer (authorization code flow with PKCE, OpenID
 * Connect Core 1.0 §3.1, RFC 7636): where to send the person, and their claims once they come back.
 */
@Injectable()
export class PersonLoginService {
  constructor(
    private readonly providers: LoginProvidersService,
    private readonly documents: ProviderDocuments,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** Where to send the person's browser: the provider's authorization endpoint with our client, PKCE S256, state, nonce, scopes, redirect_uri. */
  async start(
    tenantId: string,
    p: { state: string; nonce: string; codeChallenge: string },
  ): Promise<string> {
    const provider = await this.providers.resolve(tenantId);
    const metadata = await provider.metadata();
    const url = new URL(metadata.authorizationEndpoint);
    const parameters = {
      response_type: 'code',
      client_id: provider.clientId,
      redirect_uri: provider.redirectUri,
      scope: provider.scopes.join(' '),
      state: p.state,
      nonce: p.nonce,
      code_challenge: p.codeChallenge,
      code_challenge_method: 'S256',
    };
    for (const [name, value] of Object.entries(parameters)) url.searchParams.set(name, value);
    return url.toString();
  }

  /** Exchanges the code (with the verifier) at the provider's token endpoint, verifies the ID token (iss, aud, exp, nonce, signature via the provider's JWKS), reads userinfo when the provider has one, and returns the person's claims (ID token claims merged with userinfo; sub must match). */
  async finish(
    tenantId: string,
    p: { code: string; codeVerifier: string; nonce: string },
  ): Promise<Record<string, unknown>> {
    const provider = await this.providers.resolve(tenantId);
    const metadata = await provider.metadata();
    const tokens = await this.exchange(provider, metadata, p.code, p.codeVerifier);
    const idToken = await this.verify(provider, metadata, tokens.idToken, {
      issuer: metadata.issuer,
      clientId: provider.clientId,
      nonce: p.nonce,
      now: Math.floor(this.clock() / 1000),
    });
    const userinfo =
      metadata.userinfoEndpoint === undefined
        ? {}
        : await this.userinfo(provider, metadata.userinfoEndpoint, tokens.accessToken, idToken.sub);
    // The signed ID token's claims win over userinfo's; its mechanics are no claims of the person.
    const claims: Record<string, unknown> = { ...userinfo, ...idToken };
    for (const name of tokenMechanics) delete claims[name];
    return claims;
  }

  /** The code exchange (RFC 6749 §4.1.3, RFC 7636 §4.5). */
  private async exchange(
    provider: ResolvedLoginProvider,
    metadata: ProviderMetadata,
    code: string,
    codeVerifier: string,
  ): Promise<{ idToken: string; accessToken: string }> {
    const form = new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: provider.redirectUri,
      code_verifier: codeVerifier,
    });
    const headers: Record<string, string> = {
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
    };
    if (provider.clientSecret === undefined) {
      form.set('client_id', provider.clientId);
    } else if (metadata.tokenAuthMethod === 'client_secret_post') {
      form.set('client_id', provider.clientId);
      form.set('client_secret', provider.clientSecret);
    } else {
      // RFC 6749 §2.3.1: each form-encoded before Base64.
      const user = `${formEncode(provider.clientId)}:${formEncode(provider.clientSecret)}`;
      headers.authorization = `Basic ${Buffer.from(user).toString('base64')}`;
    }
    const response = await providerRequest(
      metadata.tokenEndpoint,
      provider.policy,
      'the token endpoint',
      {
        method: 'POST',
        headers,
        body: form.toString(),
      },
    );
    if (response.status >= 500) {
      throw new LoginProviderError(
        'unreachable',
        `the token endpoint answered HTTP ${response.status}`,
      );
    }
    if (response.status !== 200) {
      const error = safeErrorCode(response.body);
      throw new LoginProviderError(
        'code_refused',
        `the token endpoint refused the code: HTTP ${response.status}${error === undefined ? '' : ` ${error}`}`,
      );
    }
    const body = jsonObjectOf(response, 'the token response');
    if (typeof body.id_token !== 'string') {
      throw new LoginProviderError('invalid_answer', 'the token response has no id_token');
    }
    if (typeof body.access_token !== 'string') {
      throw new LoginProviderError('invalid_answer', 'the token response has no access_token');
    }
    return { idToken: body.id_token, accessToken: body.access_token };
  }

  /** Verified with the remembered keys, or with the set fetched again for a key it lacks. */
  private async verify(
    provider: ResolvedLoginProvider,
    metadata: ProviderMetadata,
    idToken: string,
    expected: IdTokenExpectations,
  ): Promise<JWTPayload & { sub: string }> {
    const keys = await this.documents.keys(metadata.jwksUri, provider.policy);
    try {
      return (await verifiedIdToken(idToken, keys, expected)) as JWTPayload & { sub: string };
    } catch (error) {
      if (!(error instanceof UnknownKeyError)) throw error;
    }
    const fresh = await this.documents.keys(metadata.jwksUri, provider.policy, true);
    try {
      return (await verifiedIdToken(idToken, fresh, expected)) as JWTPayload & { sub: string };
    } catch (error) {
      if (!(error instanceof UnknownKeyError)) throw error;
      throw new LoginProviderError(
        'id_token_refused',
        "the ID token's key is not in the provider's JWK Set",
      );
    }
  }

  /** The UserInfo response (OpenID Connect Core 1.0 §5.3), JSON only; its `sub` must be the ID token's. */
  private async userinfo(
    provider: ResolvedLoginProvider,
    endpoint: string,
    accessToken: string,
    sub: string,
  ): Promise<Json> {
    const response = await providerRequest(endpoint, provider.policy, 'the userinfo endpoint', {
      headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' },
    });
    if (response.status !== 200) {
      const reason = response.status >= 500 ? 'unreachable' : 'invalid_answer';
      throw new LoginProviderError(
        reason,
        `the userinfo endpoint answered HTTP ${response.status}`,
      );
    }
    const claims = jsonObjectOf(response, 'the userinfo response');
    if (claims.sub !== sub) {
      throw new LoginProviderError(
        'id_token_refused',
        "userinfo names another sub than the ID token's",
      );
    }
    return claims;
  }
}

function formEncode(value: string): string {
  return encodeURIComponent(value).replace(/%20/g, '+');
}

/** The `error` of an OAuth error answer, when it is a plain code: never its description, which could echo input. */
function safeErrorCode(body: Buffer): string | undefined {
  try {
    const error = (JSON.parse(body.toString('utf8')) as Json).error;
    return typeof error === 'string' && /^[a-z_]{1,64}$/.test(error) ? error : undefined;
  } catch {
    return undefined;
  }
}
