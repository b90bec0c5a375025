import { randomBytes } from 'node:crypto';
import { type HttpAdapterHost } from '@nestjs/core';
import { type AuditLog } from '../../audit/audit-log.js';
import { type Actor } from '../../auth/caller.js';
import { type Settings } from '../../config/settings.js';
import { KeyVault } from '../../secrets/key-vault.js';
import { tenantNotFound } from '../../tenancy/tenant.errors.js';
import { type TenantsService } from '../../tenants/tenants.service.js';
import { codeOf } from '../../../test/support/service-fakes.js';
import { type LoginProviderEntity } from './login-provider.entity.js';
import { LoginProviderError } from './login-provider.error.js';
import {
  type LoginProviderRepository,
  type NewLoginProvider,
} from './login-provider.repository.js';
import { LoginProvidersService } from './login-providers.service.js';
import { type ProviderDocuments } from './provider-documents.js';
import { type ProviderMetadata } from './provider-metadata.js';

/** The service without a database or network: the repository is a map, discovery a function. */
describe(LoginProvidersService.name, () => {
  const actor = { subject: 'admin' } as Actor;
  const vault = new KeyVault(randomBytes(32));
  let rows: Map<string, LoginProviderEntity>;
  let audited: string[];
  let discovered: string[];
  let discovery: (issuer: string) => Promise<ProviderMetadata>;
  let service: LoginProvidersService;

  const metadata = (issuer: string): ProviderMetadata => ({
    issuer,
    authorizationEndpoint: `${issuer}/auth`,
    tokenEndpoint: `${issuer}/token`,
    jwksUri: `${issuer}/jwks`,
    tokenAuthMethod: 'client_secret_basic',
  });
  const repository = {
    find: (tenantId: string) => Promise.resolve(rows.get(tenantId) ?? null),
    save: (row: NewLoginProvider) => {
      const saved = { ...row, createdAt: new Date('2026-11-29T09:00:00Z') };
      rows.set(row.tenantId, saved);
      return Promise.resolve(saved);
    },
    delete: (tenantId: string) => Promise.resolve(rows.delete(tenantId)),
  } as unknown as LoginProviderRepository;
  const tenants = {
    requireTenant: (tenantId: string) =>
      tenantId === 'gone' ? Promise.reject(tenantNotFound(tenantId)) : Promise.resolve(),
  } as unknown as TenantsService;
  const documents = {
    discover: (issuer: string) => {
      discovered.push(issuer);
      return discovery(issuer);
    },
    metadataOf: (issuer: string) => Promise.resolve(metadata(issuer)),
  } as unknown as ProviderDocuments;
  const adapterHost = {
    httpAdapter: { getHttpServer: () => ({ address: () => ({ port: 4711 }) }) },
  } as unknown as HttpAdapterHost;

  function newService(settings: Partial<Settings> = {}) {
    const audit = { record: (action: string) => audited.push(action) } as unknown as AuditLog;
    return new LoginProvidersService(
      {
        PUBLIC_BASE_URL: 'https://agent.example',
        authIssuerUrl: 'https://agent.example/auth/realms/agent-cloud',
        authIssuerEmbedded: true,
        statusListAllowPrivateTargets: false,
        ...settings,
      } as Settings,
      repository,
      tenants,
      documents,
      audit,
      vault,
      adapterHost,
    );
  }

  beforeEach(() => {
    rows = new Map();
    audited = [];
    discovered = [];
    discovery = (issuer) => Promise.resolve(metadata(issuer));
    service = newService();
  });

  const input = {
    issuer: 'https://login.example/realms/a',
    clientId: 'acme',
    clientSecret: 's3cret',
  };

  it('answers the bundled realm by default, and resolves it to its back channel over loopback', async () => {
    expect(await service.get('acme')).toEqual({
      issuer: 'https://agent.example/auth/realms/agent-cloud',
      clientId: 'agent-issuance-login',
      scopes: ['openid', 'profile', 'email'],
      redirectUri: 'https://agent.example/ctrl/oid4vci/acme/login/callback',
      default: true,
      createdAt: null,
    });
    const resolved = await service.resolve('acme');
    expect(resolved.clientSecret).toBeUndefined();
    expect(resolved.policy).toMatchObject({ allowPrivate: true, ownPortsAllowed: true });
    expect(await resolved.metadata()).toEqual({
      issuer: 'https://agent.example/auth/realms/agent-cloud',
      authorizationEndpoint:
        'https://agent.example/auth/realms/agent-cloud/protocol/openid-connect/auth',
      tokenEndpoint: 'http://127.0.0.1:4711/auth/realms/agent-cloud/protocol/openid-connect/token',
      jwksUri: 'http://127.0.0.1:4711/auth/realms/agent-cloud/protocol/openid-connect/certs',
      userinfoEndpoint:
        'http://127.0.0.1:4711/auth/realms/agent-cloud/protocol/openid-connect/userinfo',
      tokenAuthMethod: 'client_secret_basic',
    });
  });

  it("reaches an external Keycloak's realm where AUTH_JWKS_URL points (docker-compose)", async () => {
    const external = newService({
      authIssuerEmbedded: false,
      AUTH_JWKS_URL: 'http://keycloak:8080/auth/realms/agent-cloud/protocol/openid-connect/certs',
    });
    const endpoints = await (await external.resolve('acme')).metadata();
    expect(endpoints.authorizationEndpoint).toBe(
      'https://agent.example/auth/realms/agent-cloud/protocol/openid-connect/auth',
    );
    expect(endpoints.tokenEndpoint).toBe(
      'http://keycloak:8080/auth/realms/agent-cloud/protocol/openid-connect/token',
    );
  });

  it('discovers, seals the secret for the tenant, audits, and resolves it opened again', async () => {
    const answer = await service.set('acme', input, actor);
    expect(answer).toEqual({
      issuer: input.issuer,
      clientId: 'acme',
      scopes: ['openid', 'profile', 'email'],
      redirectUri: 'https://agent.example/ctrl/oid4vci/acme/login/callback',
      default: false,
      createdAt: '2026-11-29T09:00:00.000Z',
    });
    expect(JSON.stringify(answer)).not.toContain('s3cret');
    expect(discovered).toEqual([input.issuer]);
    expect(audited).toEqual(['oid4vci.login-provider.set']);
    const row = rows.get('acme')!;
    expect(row.clientSecretSealed.includes(Buffer.from('s3cret'))).toBe(false);
    expect(row.masterKeyId).toBe(vault.masterKeyId);
    const resolved = await service.resolve('acme');
    expect(resolved).toMatchObject({ clientSecret: 's3cret', policy: { allowPrivate: false } });
    // Sealed for this tenant: the row under another tenant does not open.
    rows.set('other', { ...row, tenantId: 'other' });
    await expect(service.resolve('other')).rejects.toThrow();
    // Under a master key this service lacks: the provider is away until the operator adds it.
    rows.set('acme', { ...row, masterKeyId: 'f'.repeat(32) });
    await expect(service.resolve('acme')).rejects.toMatchObject({ reason: 'unreachable' });
  });

  it('stores nothing when discovery fails (422) or the issuer cannot be one (400)', async () => {
    discovery = () => Promise.reject(new LoginProviderError('unreachable', 'no answer'));
    expect(await codeOf(service.set('acme', input, actor))).toBe('LOGIN_PROVIDER_DISCOVERY_FAILED');
    for (const issuer of [
      'nope',
      'http://login.example',
      'https://login.example/?q',
      'https://127.0.0.1/realm',
    ]) {
      expect(await codeOf(service.set('acme', { ...input, issuer }, actor))).toBe(
        'VALIDATION_FAILED',
      );
    }
    expect(discovered).toEqual([input.issuer]);
    expect(rows.size).toBe(0);
    expect(audited).toEqual([]);
  });

  it('goes back to the default, auditing only a removal, and checks the tenant first', async () => {
    await service.set('acme', input, actor);
    await service.delete('acme', actor);
    await service.delete('acme', actor);
    expect(audited).toEqual(['oid4vci.login-provider.set', 'oid4vci.login-provider.delete']);
    expect((await service.get('acme')).default).toBe(true);
    expect(await codeOf(service.get('gone'))).toBe('TENANT_NOT_FOUND');
    expect(await codeOf(service.delete('gone', actor))).toBe('TENANT_NOT_FOUND');
  });
});
