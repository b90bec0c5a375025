import { type NestExpressApplication } from '@nestjs/platform-express';
import { Realm } from '../issuer/realm.js';
import { createDevelopmentTenants } from '../tenants/development-tenants.js';
import { TenantsService } from '../tenants/tenants.service.js';

/** Local mode: the development users' tenants exist before the first request. */
export async function createLocalModeTenants(app: NestExpressApplication): Promise<void> {
  await app.init();
  await createDevelopmentTenants(app.get(TenantsService), app.get(Realm).userTenantIds());
}
