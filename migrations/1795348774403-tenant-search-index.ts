import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Trigram indexes for the tenant list's `q` (id or label contains the text, case-insensitively): ILIKE
 * '%text%' uses them for texts of 3 or more characters instead of reading the whole table. pg_trgm is a
 * trusted extension, so the database owner may create it without being a superuser.
 */
export class TenantSearchIndex1795348774403 implements MigrationInterface {
  name = 'TenantSearchIndex1795348774403';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE EXTENSION IF NOT EXISTS pg_trgm`);
    await queryRunner.query(
      `CREATE INDEX "tenant_id_trgm_idx" ON "tenant" USING gin ("id" gin_trgm_ops)`,
    );
    await queryRunner.query(
      `CREATE INDEX "tenant_label_trgm_idx" ON "tenant" USING gin ("label" gin_trgm_ops)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "tenant_label_trgm_idx"`);
    await queryRunner.query(`DROP INDEX "tenant_id_trgm_idx"`);
    await queryRunner.query(`DROP EXTENSION IF EXISTS pg_trgm`);
  }
}
