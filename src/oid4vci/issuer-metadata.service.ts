import { Inject, Injectable } from '@nestjs/common';
import { CertificatesService } from '../certificates/certificates.service.js';
import { CLOCK, type Clock } from '../common/clock.js';
import { Settings } from '../config/settings.js';
import { TenantKeys } from '../did/tenant-keys.service.js';
import { credentialIssuerId } from '../tenancy/credential-issuer.js';
import { TenantsService } from '../tenants/tenants.service.js';
import { CredentialConfigurationsService } from './credential-configurations.service.js';
import {
  authorizationServerMetadata,
  credentialIssuerMetadata,
  signedMetadata,
} from './issuer-metadata.js';

/** The Credential Issuer Metadata, and the same signed when the tenant's ES256 key is certified. */
export interface IssuerMetadataAnswer {
  metadata: Record<string, unknown>;
  /** The JWT of OpenID4VCI 1.0 §12.2.3; undefined without a certificate. */
  signed: string | undefined;
}

/** The tenant's public OpenID4VCI metadata; an unknown tenant is TENANT_NOT_FOUND (404). */
@Injectable()
export class IssuerMetadataService {
  constructor(
    private readonly settings: Settings,
    private readonly tenants: TenantsService,
    private readonly configurations: CredentialConfigurationsService,
    private readonly certificates: CertificatesService,
    private readonly keys: TenantKeys,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /**
   * The metadata with, when the tenant's ES256 key has a certificate, `signed_metadata` (the member
   * of the OpenID4VCI drafts), and the signed JWT alone (1.0 §12.2.3, for `Accept: application/jwt`).
   * Signed on each request: one ES256 signature; the chain is one indexed row, never parsed.
   */
  async credentialIssuer(tenantId: string): Promise<IssuerMetadataAnswer> {
    // Both reads at once: the tenant's label and its configurations.
    const [tenant, configurations] = await Promise.all([
      this.tenants.get(tenantId),
      this.configurations.allOf(tenantId),
    ]);
    const metadata = credentialIssuerMetadata(this.issuerOf(tenantId), tenant, configurations);
    // After the tenant is known: a first need for an unknown id would make a key for nothing.
    const x5c = await this.certificates.activeChain(tenantId);
    if (x5c === undefined) return { metadata, signed: undefined };
    const key = await this.keys.es256SigningKey(tenantId);
    const signed = await signedMetadata(metadata, Math.floor(this.clock() / 1000), {
      ...key,
      x5c,
    });
    return { metadata: { ...metadata, signed_metadata: signed }, signed };
  }

  async authorizationServer(tenantId: string): Promise<Record<string, unknown>> {
    await this.tenants.requireTenant(tenantId);
    return authorizationServerMetadata(this.issuerOf(tenantId));
  }

  private issuerOf(tenantId: string): string {
    return credentialIssuerId(this.settings.PUBLIC_BASE_URL, tenantId);
  }
}
