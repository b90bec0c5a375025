import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { existsSync } from 'node:fs';

/**
 * The parts of Keycloak's realm representation that the embedded issuer honours. The file itself is
 * type-checked against Keycloak's full RealmRepresentation in test/realm-file.e2e-spec.ts.
 */
export interface RealmFile {
  realm: string;
  enabled?: boolean;
  accessTokenLifespan?: number;
  accessCodeLifespan?: number;
  accessCodeLifespanLogin?: number;
  ssoSessionIdleTimeout?: number;
  ssoSessionMaxLifespan?: number;
  browserSecurityHeaders?: Record<string, string>;
  bruteForceProtected?: boolean;
  permanentLockout?: boolean;
  maxTemporaryLockouts?: number;
  bruteForceStrategy?: 'MULTIPLE' | 'LINEAR';
  failureFactor?: number;
  waitIncrementSeconds?: number;
  maxFailureWaitSeconds?: number;
  quickLoginCheckMilliSeconds?: number;
  minimumQuickLoginWaitSeconds?: number;
  maxDeltaTimeSeconds?: number;
  roles?: { realm?: { name: string }[] };
  clients?: RealmClient[];
  users?: RealmUser[];
}

export interface RealmClient {
  clientId: string;
  enabled?: boolean;
  publicClient?: boolean;
  secret?: string;
  standardFlowEnabled?: boolean;
  directAccessGrantsEnabled?: boolean;
  serviceAccountsEnabled?: boolean;
  redirectUris?: string[];
  webOrigins?: string[];
  attributes?: Record<string, string>;
  defaultClientScopes?: string[];
  protocolMappers?: RealmProtocolMapper[];
}

export interface RealmProtocolMapper {
  name: string;
  protocolMapper: string;
  config?: Record<string, string>;
}

export interface RealmUser {
  username: string;
  enabled?: boolean;
  email?: string;
  emailVerified?: boolean;
  firstName?: string;
  lastName?: string;
  credentials?: { type?: string; value?: string; temporary?: boolean }[];
  realmRoles?: string[];
  attributes?: Record<string, string[]>;
  serviceAccountClientId?: string;
}

/** The realm file shipped with the service: `keycloak/agent-cloud-realm.json` at the package root. */
export function defaultRealmFilePath(): string {
  let directory = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(directory, 'package.json'))) {
    const parent = dirname(directory);
    if (parent === directory) throw new Error('Cannot find the package root of the agent service');
    directory = parent;
  }
  return join(directory, 'keycloak', 'agent-cloud-realm.json');
}

/**
 * Keycloak's placeholder substitution at import: `${NAME}` and `${NAME:default}` take the environment
 * variable NAME, else the default; a placeholder with neither stays as written.
 */
export function substitutePlaceholders(
  text: string,
  env: Record<string, string | undefined>,
): string {
  return text.replace(
    /\$\{([A-Za-z_][A-Za-z0-9_.]*)(?::([^}]*))?\}/g,
    (whole, name: string, fallback?: string) => {
      const value = env[name];
      if (value !== undefined && value !== '') return value;
      return fallback ?? whole;
    },
  );
}

export function loadRealmFile(path: string, env: Record<string, string | undefined>): RealmFile {
  const raw = readFileSync(path, 'utf8');
  // Substitute inside JSON string values only, escaping what is put in.
  const substituted = raw.replace(/"((?:[^"\\]|\\.)*)"/g, (whole, inner: string) => {
    if (!inner.includes('${')) return whole;
    const decoded = JSON.parse(whole) as string;
    return JSON.stringify(substitutePlaceholders(decoded, env));
  });
  const realm = JSON.parse(substituted) as RealmFile;
  if (typeof realm.realm !== 'string' || realm.realm === '') {
    throw new Error(`${path}: the realm file has no realm name`);
  }
  return realm;
}
