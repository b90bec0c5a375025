import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { type IssuerKeys } from './issuer-keys.js';
import { type RealmClient } from './realm-file.js';
import { type Realm, type RealmUserView } from './realm.js';

export type GrantKind = 'password' | 'refresh_token' | 'authorization_code' | 'client_credentials';

/** Keycloak 26.2+ prefixes access token ids by how they were obtained. */
const jtiPrefixes: Record<GrantKind, string> = {
  password: 'onrtro:',
  refresh_token: 'onrtrt:',
  authorization_code: 'onrtac:',
  client_credentials: 'trrtcc:',
};

export interface TokenContext {
  grant: GrantKind;
  client: RealmClient;
  user: RealmUserView;
  /** Absent for client_credentials: no session. */
  sessionId?: string;
  /** The granted scope string (`openid email profile`). */
  scope: string;
  /** Seconds; only for the code flow. */
  authTime?: number;
  nonce?: string;
  /** Seconds. */
  now: number;
  /** Seconds: when the refresh token expires (session idle/max), absent for client_credentials. */
  refreshExpiresAt?: number;
  /** Seconds: when the session reaches its maximum lifespan; no token outlives it. */
  sessionEndsAt?: number;
  clientAddress?: string;
}

export interface IssuedTokens {
  accessToken: string;
  accessExpiresAt: number;
  refreshToken?: string;
  idToken?: string;
}

/** `sid` and `session_state`: 24 base64url characters since Keycloak 26.5. */
export function newSessionId(): string {
  return randomBytes(18).toString('base64url');
}

/** Signs tokens with Keycloak's headers and claims, in Keycloak's order. */
export class TokenFactory {
  constructor(
    private readonly realm: Realm,
    private readonly keys: IssuerKeys,
    private readonly issuer: string,
  ) {}

  async issue(context: TokenContext): Promise<IssuedTokens> {
    // Keycloak caps the access token at the end of the session's maximum lifespan.
    const accessExpiresAt = Math.min(
      context.now + this.realm.accessTokenLifespan,
      context.sessionEndsAt ?? Number.MAX_SAFE_INTEGER,
    );
    const accessToken = await this.signRs256(this.accessClaims(context, accessExpiresAt));
    const tokens: IssuedTokens = { accessToken, accessExpiresAt };
    if (context.sessionId !== undefined && context.refreshExpiresAt !== undefined) {
      tokens.refreshToken = await this.signRefresh(context);
    }
    if (context.scope.split(' ').includes('openid') && context.sessionId !== undefined) {
      tokens.idToken = await this.signRs256(this.idClaims(context, accessExpiresAt, accessToken));
    }
    return tokens;
  }

  private accessClaims(context: TokenContext, exp: number): Record<string, unknown> {
    const { client, user } = context;
    const claims: Record<string, unknown> = { exp, iat: context.now };
    if (context.authTime !== undefined) claims.auth_time = context.authTime;
    claims.jti = `${jtiPrefixes[context.grant]}${randomUUID()}`;
    claims.iss = this.issuer;
    const audience = [
      ...this.realm.audienceMappers(client),
      ...(user.accountRoles.length > 0 ? ['account'] : []),
    ];
    // Keycloak omits an empty aud and writes a single audience as a string.
    if (audience.length === 1) claims.aud = audience[0];
    else if (audience.length > 1) claims.aud = audience;
    claims.sub = user.id;
    claims.typ = 'Bearer';
    claims.azp = client.clientId;
    if (context.sessionId !== undefined) claims.sid = context.sessionId;
    claims.acr = '1';
    const origins = this.realm.webOrigins(client);
    if (origins.length > 0) claims['allowed-origins'] = origins;
    claims.realm_access = { roles: user.realmRoles };
    if (user.accountRoles.length > 0)
      claims.resource_access = { account: { roles: user.accountRoles } };
    claims.scope = context.scope;
    if (user.serviceAccountClientId !== undefined) {
      claims.email_verified = false;
      claims.clientHost = context.clientAddress ?? '127.0.0.1';
      claims.preferred_username = user.username;
      claims.clientAddress = context.clientAddress ?? '127.0.0.1';
      claims.client_id = client.clientId;
    } else {
      Object.assign(claims, this.profileClaims(user));
    }
    for (const [name, value] of this.realm.attributeClaims(client, user, 'access.token.claim')) {
      claims[name] = value;
    }
    return claims;
  }

  private idClaims(
    context: TokenContext,
    exp: number,
    accessToken: string,
  ): Record<string, unknown> {
    const claims: Record<string, unknown> = { exp, iat: context.now };
    if (context.authTime !== undefined) claims.auth_time = context.authTime;
    claims.jti = randomUUID();
    claims.iss = this.issuer;
    claims.aud = context.client.clientId;
    claims.sub = context.user.id;
    claims.typ = 'ID';
    claims.azp = context.client.clientId;
    if (context.nonce !== undefined) claims.nonce = context.nonce;
    claims.sid = context.sessionId;
    // OIDC at_hash: left half of SHA-256 of the access token.
    claims.at_hash = createHash('sha256')
      .update(accessToken)
      .digest()
      .subarray(0, 16)
      .toString('base64url');
    claims.acr = '1';
    Object.assign(claims, this.profileClaims(context.user));
    for (const [name, value] of this.realm.attributeClaims(
      context.client,
      context.user,
      'id.token.claim',
    )) {
      claims[name] = value;
    }
    return claims;
  }

  profileClaims(user: RealmUserView): Record<string, unknown> {
    const claims: Record<string, unknown> = { email_verified: user.emailVerified };
    const name = [user.firstName, user.lastName]
      .filter((part) => part !== undefined && part !== '')
      .join(' ');
    if (name !== '') claims.name = name;
    claims.preferred_username = user.username;
    if (user.firstName !== undefined) claims.given_name = user.firstName;
    if (user.lastName !== undefined) claims.family_name = user.lastName;
    if (user.email !== undefined) claims.email = user.email.toLowerCase();
    return claims;
  }

  private async signRefresh(context: TokenContext): Promise<string> {
    const claims = {
      exp: context.refreshExpiresAt,
      iat: context.now,
      jti: randomUUID(),
      iss: this.issuer,
      aud: this.issuer,
      sub: context.user.id,
      typ: 'Refresh',
      azp: context.client.clientId,
      sid: context.sessionId,
      scope: context.scope,
    };
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS512', typ: 'JWT', kid: this.keys.refreshKid })
      .sign(this.keys.refreshSecret);
  }

  private signRs256(claims: Record<string, unknown>): Promise<string> {
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid: this.keys.signingKid })
      .sign(this.keys.signingKey);
  }
}
