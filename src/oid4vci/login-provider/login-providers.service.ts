import { Inject, Injectable } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { type AddressInfo } from 'node:net';
import { type Server } from 'node:http';
import { AuditLog } from '../../audit/audit-log.js';
import { type Actor } from '../../auth/caller.js';
import { type OutboundPolicy, urlProblem } from '../../common/outbound.js';
import { Settings } from '../../config/settings.js';
import { violates } from '../../database/constraint-violation.js';
import { KeyVault, UnknownMasterKeyError } from '../../secrets/key-vault.js';
import { tenantNotFound } from '../../tenancy/tenant.errors.js';
import { TenantsService } from '../../tenants/tenants.service.js';
import {
  bundledBackChannel,
  bundledClientId,
  bundledMetadata,
  defaultScopes,
} from './bundled-realm.js';
import { type LoginProviderDto, type SetLoginProviderDto } from './dto/login-provider.dto.js';
import { type LoginProviderEntity } from './login-provider.entity.js';
import { discoveryFailed, issuerRefused } from './login-provider.errors.js';
import { LoginProviderError } from './login-provider.error.js';
import { LoginProviderRepository } from './login-provider.repository.js';
import { loginProviderSecretPurpose } from './login-provider.sealed-columns.js';
import { ProviderDocuments } from './provider-documents.js';
import { type ProviderMetadata } from './provider-metadata.js';

/** A tenant's provider as the login client uses it: with its secret (never answered) and endpoints. */
export interface ResolvedLoginProvider {
  issuer: string;
  clientId: string;
  /** Absent for the bundled realm's public client. */
  clientSecret?: string;
  scopes: readonly string[];
  redirectUri: string;
  policy: OutboundPolicy;
  metadata(): Promise<ProviderMetadata>;
}

/** Each tenant's login provider for authorization-code issuance (docs/login-provider.md). */
@Injectable()
export class LoginProvidersService {
  /** Tenants' providers: public https, or what STATUS_LIST_ALLOW_PRIVATE_TARGETS allows beyond. */
  readonly tenantPolicy: OutboundPolicy;
  /** The bundled realm, the operator's configuration: its back channel may be private or this process. */
  private readonly bundledPolicy: OutboundPolicy;

  constructor(
    private readonly settings: Settings,
    private readonly repository: LoginProviderRepository,
    private readonly tenants: TenantsService,
    private readonly documents: ProviderDocuments,
    private readonly audit: AuditLog,
    @Inject(KeyVault) private readonly vault: KeyVault,
    private readonly adapterHost: HttpAdapterHost,
  ) {
    const ca = settings.OUTBOUND_CA_FILE;
    this.tenantPolicy = { allowPrivate: settings.statusListAllowPrivateTargets, ca };
    this.bundledPolicy = { allowPrivate: true, ownPortsAllowed: true, ca };
  }

  async get(tenantId: string): Promise<LoginProviderDto> {
    await this.tenants.requireTenant(tenantId);
    const row = await this.repository.find(tenantId);
    return row === null ? this.defaultView(tenantId) : this.viewOf(row);
  }

  /**
   * Sets the tenant's provider, replacing any: the issuer's discovery document is fetched and checked
   * first, and nothing is stored when it fails. The secret is sealed for the tenant.
   */
  async set(tenantId: string, input: SetLoginProviderDto, actor: Actor): Promise<LoginProviderDto> {
    const issuer = this.checkedIssuer(input.issuer);
    await this.tenants.requireTenant(tenantId);
    try {
      await this.documents.discover(issuer, this.tenantPolicy);
    } catch (error) {
      if (error instanceof LoginProviderError) throw discoveryFailed(error.message);
      throw error;
    }
    const row = await this.repository
      .save({
        tenantId,
        issuer,
        clientId: input.clientId,
        clientSecretSealed: this.vault.seal(
          tenantId,
          Buffer.from(input.clientSecret, 'utf8'),
          loginProviderSecretPurpose,
        ),
        masterKeyId: this.vault.masterKeyId,
        scopes: input.scopes ?? [...defaultScopes],
      })
      .catch((error: unknown) => {
        // The tenant was deleted since it was checked.
        if (violates(error, 'foreign-key')) throw tenantNotFound(tenantId);
        throw error;
      });
    this.audit.record('oid4vci.login-provider.set', actor, tenantId, {
      issuer,
      clientId: input.clientId,
    });
    return this.viewOf(row);
  }

  /** Back to the bundled realm. */
  async delete(tenantId: string, actor: Actor): Promise<void> {
    await this.tenants.requireTenant(tenantId);
    if (await this.repository.delete(tenantId)) {
      this.audit.record('oid4vci.login-provider.delete', actor, tenantId);
    }
  }

  /** The tenant's provider for a login, its secret opened; the bundled realm when it has none. */
  async resolve(tenantId: string): Promise<ResolvedLoginProvider> {
    const row = await this.repository.find(tenantId);
    const redirectUri = this.redirectUri(tenantId);
    if (row === null) {
      const issuer = this.settings.authIssuerUrl;
      const metadata = bundledMetadata(
        issuer,
        bundledBackChannel(this.settings, () => this.ownPort()),
      );
      return {
        issuer,
        clientId: bundledClientId,
        scopes: defaultScopes,
        redirectUri,
        policy: this.bundledPolicy,
        metadata: () => Promise.resolve(metadata),
      };
    }
    const secret = this.openSecret(row);
    return {
      issuer: row.issuer,
      clientId: row.clientId,
      clientSecret: secret.toString('utf8'),
      scopes: row.scopes,
      redirectUri,
      policy: this.tenantPolicy,
      metadata: () => this.documents.metadataOf(row.issuer, this.tenantPolicy),
    };
  }

  /** Stable per tenant: the route the authorization code flow's callback listens on. */
  redirectUri(tenantId: string): string {
    return `${this.settings.PUBLIC_BASE_URL}/ctrl/oid4vci/${encodeURIComponent(tenantId)}/login/callback`;
  }

  /** A secret sealed under a master key this instance lacks is the operator's to fix: the provider is away. */
  private openSecret(row: LoginProviderEntity): Buffer {
    try {
      return this.vault.open(
        row.tenantId,
        row.clientSecretSealed,
        loginProviderSecretPurpose,
        row.masterKeyId ?? undefined,
      );
    } catch (error) {
      if (!(error instanceof UnknownMasterKeyError)) throw error;
      throw new LoginProviderError(
        'unreachable',
        `the client secret is sealed under master key ${error.masterKeyId}, which this service lacks`,
      );
    }
  }

  private checkedIssuer(issuer: string): string {
    if (!URL.canParse(issuer)) throw issuerRefused('is not a URL');
    const url = new URL(issuer);
    const plainAllowed = this.tenantPolicy.allowPrivate !== false;
    if (url.protocol !== 'https:' && !(plainAllowed && url.protocol === 'http:')) {
      throw issuerRefused('must be an https URL');
    }
    if (url.search !== '' || url.hash !== '' || issuer.includes('?') || issuer.includes('#')) {
      throw issuerRefused('must have no query or fragment (OpenID Connect Discovery §2)');
    }
    const problem = urlProblem(issuer, this.tenantPolicy);
    if (problem !== undefined) throw issuerRefused(`is refused: ${problem}`);
    return issuer;
  }

  private viewOf(row: LoginProviderEntity): LoginProviderDto {
    return {
      issuer: row.issuer,
      clientId: row.clientId,
      scopes: row.scopes,
      redirectUri: this.redirectUri(row.tenantId),
      default: false,
      createdAt: row.createdAt.toISOString(),
    };
  }

  private defaultView(tenantId: string): LoginProviderDto {
    return {
      issuer: this.settings.authIssuerUrl,
      clientId: bundledClientId,
      scopes: [...defaultScopes],
      redirectUri: this.redirectUri(tenantId),
      default: true,
      createdAt: null,
    };
  }

  private ownPort(): number {
    const server = this.adapterHost.httpAdapter.getHttpServer() as Server;
    return (server.address() as AddressInfo).port;
  }
}
