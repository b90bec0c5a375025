import { type MigrationInterface, type QueryRunner } from 'typeorm';

const indexes = [
  {
    name: 'oid4vci_offer_tenant_open_idx',
    definition: `"oid4vci_offer" ("tenant_id", "expires_at") WHERE "status" IN ('offered', 'accepted')`,
  },
  {
    name: 'oid4vp_request_tenant_pending_idx',
    definition: `"oid4vp_request" ("tenant_id", "expires_at") WHERE "status" = 'pending'`,
  },
];

/**
 * The per-tenant caps count a tenant's open offers and pending presentation requests before each
 * insert (OfferWithinCap1795800600000, PresentationRequestWithinCap1795800610000). Without these the
 * count read every tenant's open rows (the expiry indexes) or every row the tenant ever had: now it
 * reads the tenant's open rows alone, from the index, so that one tenant's offers or requests never
 * slow another's creates (docs/architecture.md, Per-tenant caps).
 *
 * Built CONCURRENTLY, so outside a transaction: the previous release keeps writing offers and requests
 * while a large table is indexed (docs/operations.md, Database and migrations).
 */
export class OpenPerTenantIndexes1795800620000 implements MigrationInterface {
  name = 'OpenPerTenantIndexes1795800620000';
  transaction = false;

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const { name, definition } of indexes) {
      // A build that was interrupted leaves an invalid index of that name, which IF NOT EXISTS would keep.
      const [leftover] = (await queryRunner.query(
        `SELECT i.indisvalid AS valid FROM pg_index i
           WHERE i.indexrelid = to_regclass(quote_ident($1))`,
        [name],
      )) as { valid: boolean }[];
      if (leftover?.valid === false) await queryRunner.query(`DROP INDEX CONCURRENTLY "${name}"`);
      await queryRunner.query(`CREATE INDEX CONCURRENTLY IF NOT EXISTS "${name}" ON ${definition}`);
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // TypeORM reverts in a transaction, where CONCURRENTLY is refused; dropping an index is quick.
    for (const { name } of [...indexes].reverse()) await queryRunner.query(`DROP INDEX "${name}"`);
  }
}
