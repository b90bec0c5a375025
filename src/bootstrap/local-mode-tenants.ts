import { type NestExpressApplication } from '@nestjs/platform-express';
import { Realm } from '../issuer/realm.js';
import { CredentialConfigurationsService } from '../oid4vci/credential-configurations.service.js';
import { createDemoConfigurations } from '../oid4vci/demo-configurations.js';
import { createDevelopmentTenants, localModeActor } from '../tenants/development-tenants.js';
import { TenantsService } from '../tenants/tenants.service.js';

/**
 * Local mode: the development users' tenants exist before the first request, and a tenant made at the
 * first start can issue to a wallet at once (its demo credential configurations). A later start adds
 * nothing, so a configuration the user deleted stays deleted.
 */
export async function createLocalModeTenants(app: NestExpressApplication): Promise<void> {
  await app.init();
  const created = await createDevelopmentTenants(
    app.get(TenantsService),
    app.get(Realm).userTenantIds(),
  );
  const configurations = app.get(CredentialConfigurationsService);
  for (const tenantId of created)
    await createDemoConfigurations(configurations, tenantId, localModeActor);
}
