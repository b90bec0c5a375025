import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * The per-tenant caps count a tenant's open offers and pending presentation requests before each
 * insert (OfferWithinCap1795800600000, PresentationRequestWithinCap1795800610000). Without these the
 * count read every tenant's open rows (the expiry indexes) or every row the tenant ever had: now it
 * reads the tenant's open rows alone, from the index, so that one tenant's offers or requests never
 * slow another's creates (docs/architecture.md, Per-tenant caps).
 */
export class OpenPerTenantIndexes1795800620000 implements MigrationInterface {
  name = 'OpenPerTenantIndexes1795800620000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX "oid4vci_offer_tenant_open_idx" ON "oid4vci_offer" ("tenant_id", "expires_at")
         WHERE "status" IN ('offered', 'accepted')`,
    );
    await queryRunner.query(
      `CREATE INDEX "oid4vp_request_tenant_pending_idx" ON "oid4vp_request" ("tenant_id", "expires_at")
         WHERE "status" = 'pending'`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "oid4vp_request_tenant_pending_idx"`);
    await queryRunner.query(`DROP INDEX "oid4vci_offer_tenant_open_idx"`);
  }
}
