import { type EntityManager } from 'typeorm';
import { tenantNotFound } from '../tenancy/tenant.errors.js';

/**
 * The tenant rule of every tenant-scoped route: an unknown tenant is 404. With `lock`, inside a
 * transaction, the tenant's row stays locked until it ends (so that a delete waits, and so do other
 * changes under the same lock).
 */
export async function requireTenant(
  manager: Pick<EntityManager, 'query'>,
  tenantId: string,
  options: { lock?: boolean } = {},
): Promise<void> {
  const found = await manager.query<unknown[]>(
    `SELECT 1 FROM tenant WHERE id = $1${options.lock === true ? ' FOR UPDATE' : ''}`,
    [tenantId],
  );
  if (found.length === 0) throw tenantNotFound(tenantId);
}
