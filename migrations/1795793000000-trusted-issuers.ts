import { type MigrationInterface, type QueryRunner } from 'typeorm';

/** Each tenant's default list of trusted issuers, applied by verification when a request names none. */
export class TrustedIssuers1795793000000 implements MigrationInterface {
  name = 'TrustedIssuers1795793000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "trusted_issuer" (
        "id" uuid NOT NULL,
        "tenant_id" varchar(64) NOT NULL,
        "issuer" varchar(2048) NOT NULL,
        "description" varchar(500),
        "created_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "trusted_issuer_pkey" PRIMARY KEY ("id"),
        CONSTRAINT "trusted_issuer_tenant_issuer_key" UNIQUE ("tenant_id", "issuer"),
        CONSTRAINT "trusted_issuer_tenant_id_fkey" FOREIGN KEY ("tenant_id")
          REFERENCES "tenant"("id") ON DELETE CASCADE
      )`);
    await queryRunner.query(
      `CREATE INDEX "trusted_issuer_tenant_idx" ON "trusted_issuer" ("tenant_id", "created_at")`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "trusted_issuer"`);
  }
}
