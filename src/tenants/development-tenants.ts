import { Logger } from '@nestjs/common';
import { type Actor } from '../auth/caller.js';
import { type TenantsService } from './tenants.service.js';

/** What the audit line of a tenant made by local mode itself names as its author. */
export const localModeActor: Actor = {
  subject: 'local-mode',
  username: 'local-mode',
  clientId: undefined,
  roles: [],
  tenantIds: [],
  requestId: undefined,
};

/**
 * Local mode on a database without any tenant (a first start): creates the tenants the realm's
 * development users act for, `demo` for demo/demo, whose every call would otherwise answer 404. Once a
 * tenant exists, nothing is created again, so a deleted one stays deleted while others exist. Answers
 * the ids it created (none after the first start).
 */
export async function createDevelopmentTenants(
  tenants: TenantsService,
  ids: readonly string[],
): Promise<string[]> {
  if (ids.length === 0 || !(await tenants.none())) return [];
  const logger = new Logger('LocalMode');
  for (const id of ids) {
    await tenants.create({ id, label: `${id} (made by local mode)` }, localModeActor);
    logger.log({
      msg: `Created tenant "${id}" for the realm's development users (the database had no tenant)`,
      event: 'local-mode.tenant-created',
      tenantId: id,
    });
  }
  return [...ids];
}
