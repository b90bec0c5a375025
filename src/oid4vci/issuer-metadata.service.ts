import { Injectable } from '@nestjs/common';
import { Settings } from '../config/settings.js';
import { credentialIssuerId } from '../tenancy/credential-issuer.js';
import { TenantsService } from '../tenants/tenants.service.js';
import { CredentialConfigurationsService } from './credential-configurations.service.js';
import { authorizationServerMetadata, credentialIssuerMetadata } from './issuer-metadata.js';

/** The tenant's public OpenID4VCI metadata; an unknown tenant is TENANT_NOT_FOUND (404). */
@Injectable()
export class IssuerMetadataService {
  constructor(
    private readonly settings: Settings,
    private readonly tenants: TenantsService,
    private readonly configurations: CredentialConfigurationsService,
  ) {}

  async credentialIssuer(tenantId: string): Promise<Record<string, unknown>> {
    // Both reads at once: the tenant's label and its configurations.
    const [tenant, configurations] = await Promise.all([
      this.tenants.get(tenantId),
      this.configurations.allOf(tenantId),
    ]);
    return credentialIssuerMetadata(this.issuerOf(tenantId), tenant, configurations);
  }

  async authorizationServer(tenantId: string): Promise<Record<string, unknown>> {
    await this.tenants.requireTenant(tenantId);
    return authorizationServerMetadata(this.issuerOf(tenantId));
  }

  private issuerOf(tenantId: string): string {
    return credentialIssuerId(this.settings.PUBLIC_BASE_URL, tenantId);
  }
}
