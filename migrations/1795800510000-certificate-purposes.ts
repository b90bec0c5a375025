import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * A tenant's certificates by purpose: `x5c` (HAIP 1.0, the chain of its JWS) and `document_signer`
 * (ISO/IEC 18013-5 Annex B, the x5chain of its mdocs), at most one active per tenant and purpose; the
 * published read of the active `x5c` chain keeps its meaning (docs/certificates.md).
 */
export class CertificatePurposes1795800510000 implements MigrationInterface {
  name = 'CertificatePurposes1795800510000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "tenant_certificate" ADD COLUMN "purpose" varchar(16) NOT NULL DEFAULT 'x5c'`,
    );
    await queryRunner.query(
      `ALTER TABLE "tenant_certificate" ADD CONSTRAINT "tenant_certificate_purpose_check" CHECK ("purpose" IN ('x5c', 'document_signer'))`,
    );
    await queryRunner.query(`DROP INDEX "tenant_certificate_one_active"`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "tenant_certificate_one_active" ON "tenant_certificate" ("tenant_id", "purpose") WHERE "status" = 'active'`,
    );
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION "active_certificate_of"(for_tenant varchar)
        RETURNS TABLE (x5c jsonb, not_before timestamptz, not_after timestamptz)
        LANGUAGE sql STABLE
      BEGIN ATOMIC
        SELECT c.x5c, c.not_before, c.not_after
          FROM "tenant_certificate" c
         WHERE c.tenant_id = for_tenant AND c.status = 'active' AND c.purpose = 'x5c';
      END`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION "active_certificate_of"(for_tenant varchar)
        RETURNS TABLE (x5c jsonb, not_before timestamptz, not_after timestamptz)
        LANGUAGE sql STABLE
      BEGIN ATOMIC
        SELECT c.x5c, c.not_before, c.not_after
          FROM "tenant_certificate" c
         WHERE c.tenant_id = for_tenant AND c.status = 'active';
      END`);
    await queryRunner.query(`DELETE FROM "tenant_certificate" WHERE "purpose" <> 'x5c'`);
    await queryRunner.query(`DROP INDEX "tenant_certificate_one_active"`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "tenant_certificate_one_active" ON "tenant_certificate" ("tenant_id") WHERE "status" = 'active'`,
    );
    await queryRunner.query(
      `ALTER TABLE "tenant_certificate" DROP CONSTRAINT "tenant_certificate_purpose_check"`,
    );
    await queryRunner.query(`ALTER TABLE "tenant_certificate" DROP COLUMN "purpose"`);
  }
}
