import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import {
  defaultRealmFilePath,
  loadRealmFile,
  substitutePlaceholders,
} from '../src/issuer/realm-file.js';

const realmPath = resolve('keycloak/agent-cloud-realm.json');
const checkPath = resolve('keycloak/realm-file.typecheck.ts');

/** Compiles the type check with the realm file's text replaced by `realmText`; returns the errors. */
function typeErrors(realmText: string): string[] {
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2023,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    resolveJsonModule: true,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  host.readFile = (file) => (resolve(file) === realmPath ? realmText : readFile(file));
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (file, language, onError, create) =>
    resolve(file) === realmPath
      ? ts.createSourceFile(file, realmText, language, true, ts.ScriptKind.JSON)
      : getSourceFile(file, language, onError, create);
  const program = ts.createProgram([checkPath], options, host);
  return ts
    .getPreEmitDiagnostics(program)
    .map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
}

describe('the realm file', () => {
  const text = readFileSync(realmPath, 'utf8');

  it("type-checks against Keycloak's RealmRepresentation", () => {
    expect(typeErrors(text)).toEqual([]);
  });

  it.each([
    ['a misspelt client field', '"directAccessGrantsEnabled"', '"directAccesGrantsEnabled"'],
    ['a misspelt realm field', '"accessTokenLifespan"', '"accessTokenLifeSpan"'],
    ['a misspelt user field', '"realmRoles"', '"realmRole"'],
    ['a wrongly typed value', '"accessTokenLifespan": 600', '"accessTokenLifespan": "600"'],
  ])('fails the check with %s', (_case, from, to) => {
    expect(text).toContain(from);
    expect(typeErrors(text.replace(from, to)).length).toBeGreaterThan(0);
  });

  it('defines what api.md asks for', () => {
    const realm = loadRealmFile(defaultRealmFilePath(), {});
    expect(realm.realm).toBe('agent-cloud');
    expect(realm.accessTokenLifespan).toBe(600);
    expect(realm.ssoSessionIdleTimeout).toBe(1800);
    expect(realm.roles?.realm?.map((role) => role.name).sort()).toEqual([
      'agent-admin',
      'agent-user',
    ]);
    const client = realm.clients?.find((candidate) => candidate.clientId === 'agent-client');
    expect(client).toMatchObject({
      publicClient: true,
      directAccessGrantsEnabled: true,
      standardFlowEnabled: true,
      redirectUris: ['http://localhost:8080/ctrl/swagger-ui/oauth2-redirect.html'],
      attributes: { 'pkce.code.challenge.method': 'S256' },
    });
    expect(client?.protocolMappers?.map((mapper) => mapper.protocolMapper).sort()).toEqual([
      'oidc-audience-mapper',
      'oidc-usermodel-attribute-mapper',
    ]);
    const service = realm.clients?.find((candidate) => candidate.clientId === 'agent-service');
    expect(service).toMatchObject({
      publicClient: false,
      serviceAccountsEnabled: true,
      secret: 'change-me',
    });
    const users = Object.fromEntries((realm.users ?? []).map((user) => [user.username, user]));
    expect(users.admin?.realmRoles).toContain('agent-admin');
    expect(users.demo?.realmRoles).toContain('agent-user');
    expect(users.demo?.attributes?.tenant_ids).toEqual(['demo']);
    expect(users['service-account-agent-service']?.realmRoles).toContain('agent-admin');
  });

  it('declares tenant_ids in the user profile so that Keycloak 24+ keeps it', () => {
    const raw = JSON.parse(text) as {
      components: Record<string, { providerId: string; config: Record<string, string[]> }[]>;
    };
    const [profile] = raw.components['org.keycloak.userprofile.UserProfileProvider'] ?? [];
    const config = JSON.parse(profile?.config['kc.user.profile.config']?.[0] ?? '{}') as {
      attributes: { name: string; multivalued?: boolean }[];
    };
    expect(config.attributes.find((attribute) => attribute.name === 'tenant_ids')).toMatchObject({
      multivalued: true,
    });
    expect(config.attributes.map((attribute) => attribute.name)).toEqual(
      expect.arrayContaining(['username', 'email', 'firstName', 'lastName']),
    );
  });

  it("substitutes ${VAR} and ${VAR:default} as Keycloak's import does", () => {
    expect(substitutePlaceholders('${A:x}-${B:y}-${C}', { A: 'a' })).toBe('a-y-${C}');
    const realm = loadRealmFile(realmPath, {
      PUBLIC_BASE_URL: 'https://agent.example.com',
      AGENT_ADMIN_PASSWORD: 'pa"ss\\word',
    });
    const client = realm.clients?.find((candidate) => candidate.clientId === 'agent-client');
    expect(client?.redirectUris).toEqual([
      'https://agent.example.com/ctrl/swagger-ui/oauth2-redirect.html',
    ]);
    const admin = realm.users?.find((user) => user.username === 'admin');
    expect(admin?.credentials?.[0]?.value).toBe('pa"ss\\word');
    expect(join(defaultRealmFilePath())).toBe(realmPath);
  });
});
