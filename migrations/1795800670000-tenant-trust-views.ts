import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * trusted-issuers/ and trust-anchors/ publish what a tenant trusts, so that a wallet presentation's
 * verification reads the tenant's trusted issuers and X.509 anchors in one round trip, not one each
 * (docs/performance.md, "The response endpoint's trust in one read"). Views over the owner's table
 * alone, inlined where they are read, as `credential_status` in PublishedStatements1795799200000.
 */
export class TenantTrustViews1795800670000 implements MigrationInterface {
  name = 'TenantTrustViews1795800670000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE VIEW "tenant_trusted_issuer" AS
        SELECT t.tenant_id, t.issuer FROM "trusted_issuer" t`);
    await queryRunner.query(`
      CREATE VIEW "tenant_trust_anchor" AS
        SELECT a.tenant_id, a.fingerprint, a.certificate FROM "trust_anchor" a`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP VIEW "tenant_trust_anchor"`);
    await queryRunner.query(`DROP VIEW "tenant_trusted_issuer"`);
  }
}
