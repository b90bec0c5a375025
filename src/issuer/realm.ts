import { createHash, timingSafeEqual } from 'node:crypto';
import { pageHeaders } from './browser-security-headers.js';
import { bruteForceSettings, type BruteForceSettings } from './brute-force-settings.js';
import { type RealmClient, type RealmFile, type RealmUser } from './realm-file.js';
import { verifyRedirectUri } from './redirect-uri.js';

/** What Keycloak makes of `default-roles-<realm>` on import: its usual composite members. */
const defaultRoleRealmMembers = ['offline_access', 'uma_authorization'];
const defaultRoleAccountRoles = ['manage-account', 'manage-account-links', 'view-profile'];

/** Scopes that appear in the `scope` claim (include.in.token.scope), in Keycloak's order. */
const tokenScopes = ['email', 'profile'];

export interface RealmUserView {
  id: string;
  username: string;
  enabled: boolean;
  email?: string;
  emailVerified: boolean;
  firstName?: string;
  lastName?: string;
  realmRoles: string[];
  accountRoles: string[];
  attributes: Record<string, string[]>;
  serviceAccountClientId?: string;
  fullySetUp: boolean;
}

/**
 * The realm as the embedded issuer sees it: clients, users and lifetimes from the realm file, with
 * Keycloak's defaults and rules (role composites, redirect URI wildcards, web origins).
 */
export class Realm {
  readonly name: string;
  readonly accessTokenLifespan: number;
  readonly accessCodeLifespan: number;
  /** How long a login page stays usable after its last use (Keycloak's "Login timeout"). */
  readonly accessCodeLifespanLogin: number;
  readonly ssoSessionIdleTimeout: number;
  readonly ssoSessionMaxLifespan: number;
  /** The headers of the issuer's pages (browserSecurityHeaders). */
  readonly pageHeaders: Record<string, string>;
  readonly bruteForce: BruteForceSettings;
  private readonly clients: Map<string, RealmClient>;
  private readonly users: Map<string, RealmUserView>;
  private readonly passwords: Map<string, { value?: string; temporary?: boolean } | undefined>;

  constructor(file: RealmFile) {
    this.name = file.realm;
    this.accessTokenLifespan = file.accessTokenLifespan ?? 300;
    this.accessCodeLifespan = file.accessCodeLifespan ?? 60;
    this.accessCodeLifespanLogin = file.accessCodeLifespanLogin ?? 1800;
    this.ssoSessionIdleTimeout = file.ssoSessionIdleTimeout ?? 1800;
    this.ssoSessionMaxLifespan = file.ssoSessionMaxLifespan ?? 36000;
    this.pageHeaders = pageHeaders(file.browserSecurityHeaders);
    this.bruteForce = bruteForceSettings(file);
    this.clients = new Map((file.clients ?? []).map((client) => [client.clientId, client]));
    this.users = new Map(
      (file.users ?? []).map((user) => [user.username.toLowerCase(), this.view(user)]),
    );
    this.passwords = new Map(
      (file.users ?? []).map((user) => [
        user.username.toLowerCase(),
        user.credentials?.find((credential) => (credential.type ?? 'password') === 'password'),
      ]),
    );
  }

  allClients(): RealmClient[] {
    return [...this.clients.values()].filter((client) => client.enabled !== false);
  }

  client(clientId: string): RealmClient | undefined {
    const client = this.clients.get(clientId);
    return client !== undefined && client.enabled !== false ? client : undefined;
  }

  /** Keycloak logs users in by username or, when allowed, email; both case-insensitively. */
  findUser(usernameOrEmail: string): RealmUserView | undefined {
    const key = usernameOrEmail.toLowerCase();
    const byName = this.users.get(key);
    if (byName !== undefined) return byName;
    return [...this.users.values()].find((user) => user.email?.toLowerCase() === key);
  }

  userById(id: string): RealmUserView | undefined {
    return [...this.users.values()].find((user) => user.id === id);
  }

  /** The tenants the realm's enabled users act for (their `tenant_ids` attribute), sorted. */
  userTenantIds(): string[] {
    const ids = [...this.users.values()]
      .filter((user) => user.enabled)
      .flatMap((user) => user.attributes.tenant_ids ?? []);
    return [...new Set(ids)].sort();
  }

  serviceAccountOf(clientId: string): RealmUserView | undefined {
    return [...this.users.values()].find((user) => user.serviceAccountClientId === clientId);
  }

  /** Compares in constant time; false for users without a password (service accounts). */
  passwordMatches(user: RealmUserView, password: string): boolean {
    const credential = this.passwords.get(user.username.toLowerCase());
    const expected = createHash('sha256')
      .update(credential?.value ?? '')
      .digest();
    const given = createHash('sha256').update(password).digest();
    return timingSafeEqual(expected, given) && credential?.value !== undefined;
  }

  hasTemporaryPassword(user: RealmUserView): boolean {
    return this.passwords.get(user.username.toLowerCase())?.temporary === true;
  }

  /** Where the browser goes for a requested redirect_uri, or undefined when not allowed. */
  verifiedRedirectUri(client: RealmClient, redirectUri: string): string | undefined {
    return verifyRedirectUri(redirectUri, client.redirectUris ?? []);
  }

  /** The same for post_logout_redirect_uri: `+` (or nothing) means the client's redirect URIs. */
  verifiedPostLogoutRedirectUri(client: RealmClient, uri: string): string | undefined {
    const configured = client.attributes?.['post.logout.redirect.uris'];
    const patterns =
      configured === undefined || configured === '+'
        ? (client.redirectUris ?? [])
        : configured.split('##');
    return verifyRedirectUri(uri, patterns);
  }

  /** `webOrigins`, with `+` meaning the origins of the redirect URIs. */
  webOrigins(client: RealmClient): string[] {
    const origins = new Set<string>();
    for (const entry of client.webOrigins ?? []) {
      if (entry === '+') {
        for (const uri of client.redirectUris ?? []) {
          try {
            origins.add(new URL(uri.replace(/\*$/, '')).origin);
          } catch {
            // A relative or malformed redirect URI contributes no origin.
          }
        }
      } else {
        origins.add(entry);
      }
    }
    return [...origins];
  }

  audienceMappers(client: RealmClient): string[] {
    return (client.protocolMappers ?? [])
      .filter(
        (mapper) =>
          mapper.protocolMapper === 'oidc-audience-mapper' &&
          mapper.config?.['access.token.claim'] !== 'false',
      )
      .map(
        (mapper) =>
          mapper.config?.['included.custom.audience'] ??
          mapper.config?.['included.client.audience'],
      )
      .filter((audience): audience is string => audience !== undefined && audience !== '');
  }

  /** Claims of `oidc-usermodel-attribute-mapper`s for one kind of token. */
  attributeClaims(
    client: RealmClient,
    user: RealmUserView,
    token: 'access.token.claim' | 'id.token.claim' | 'userinfo.token.claim',
  ): [string, string | string[]][] {
    const claims: [string, string | string[]][] = [];
    for (const mapper of client.protocolMappers ?? []) {
      const config = mapper.config ?? {};
      if (mapper.protocolMapper !== 'oidc-usermodel-attribute-mapper') continue;
      if (config[token] !== 'true') continue;
      const values = user.attributes[config['user.attribute'] ?? ''];
      const claimName = config['claim.name'];
      if (values === undefined || values.length === 0 || claimName === undefined) continue;
      claims.push([claimName, config.multivalued === 'true' ? values : values[0]]);
    }
    return claims;
  }

  /** The `scope` claim: `openid` when asked for, then the default scopes that show in tokens. */
  grantedScope(requested: string | undefined): string {
    const asked = new Set((requested ?? '').split(' ').filter((scope) => scope !== ''));
    return [...(asked.has('openid') ? ['openid'] : []), ...tokenScopes].join(' ');
  }

  private view(user: RealmUser): RealmUserView {
    const listed = user.realmRoles ?? [];
    const defaultRole = `default-roles-${this.name}`;
    const realmRoles = listed.flatMap((role) =>
      role === defaultRole ? [role, ...defaultRoleRealmMembers] : [role],
    );
    return {
      // Keycloak's user ids are UUIDs; derive a stable one from realm and username.
      id: stableUuid(`${this.name}/${user.username.toLowerCase()}`),
      username: user.username.toLowerCase(),
      enabled: user.enabled !== false,
      email: user.email,
      emailVerified: user.emailVerified === true,
      firstName: user.firstName,
      lastName: user.lastName,
      realmRoles: [...new Set(realmRoles)],
      accountRoles: listed.includes(defaultRole) ? defaultRoleAccountRoles : [],
      attributes: user.attributes ?? {},
      serviceAccountClientId: user.serviceAccountClientId,
      // Keycloak 24+ (default user profile): email, first and last name are required to log in.
      fullySetUp:
        user.serviceAccountClientId !== undefined ||
        (nonEmpty(user.email) && nonEmpty(user.firstName) && nonEmpty(user.lastName)),
    };
  }
}

function nonEmpty(value: string | undefined): boolean {
  return value !== undefined && value.trim() !== '';
}

function stableUuid(seed: string): string {
  const hex = createHash('sha256').update(seed).digest('hex');
  const variant = ((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
