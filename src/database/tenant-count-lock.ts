import { type EntityManager } from 'typeorm';

const lockSql = 'SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))';

/**
 * Serialises, until the caller's transaction ends, the creates that count one kind of a tenant's rows
 * against a cap: an advisory lock per kind and tenant, so concurrent creates cannot pass the cap
 * together while nothing else waits (the tenant's row stays unlocked). Take it last, right before the
 * count and the insert, so that little runs under it (docs/architecture.md, Per-tenant caps).
 */
export async function lockTenantCount(
  manager: EntityManager,
  kind: string,
  tenantId: string,
): Promise<void> {
  await manager.query(lockSql, [kind, tenantId]);
}
