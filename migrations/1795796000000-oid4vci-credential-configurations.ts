import { type MigrationInterface, type QueryRunner } from 'typeorm';

/** Each tenant's OpenID4VCI credential configurations, which its issuer metadata lists (docs/oid4vci.md). */
export class Oid4vciCredentialConfigurations1795796000000 implements MigrationInterface {
  name = 'Oid4vciCredentialConfigurations1795796000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "oid4vci_credential_configuration" (
        "tenant_id" varchar(64) NOT NULL,
        "configuration_id" varchar(64) NOT NULL,
        "format" varchar(16) NOT NULL,
        "vct" varchar(2048),
        "credential_definition" jsonb,
        "claims" jsonb NOT NULL,
        "display" jsonb NOT NULL,
        "selectively_disclosable" jsonb,
        "expires_in_seconds" integer,
        "revocable" boolean NOT NULL,
        "signing_algorithm" varchar(16),
        "cryptosuite" varchar(32),
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "updated_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "oid4vci_credential_configuration_pkey" PRIMARY KEY ("tenant_id", "configuration_id"),
        CONSTRAINT "oid4vci_credential_configuration_tenant_id_fkey" FOREIGN KEY ("tenant_id")
          REFERENCES "tenant"("id") ON DELETE CASCADE
      )`);
    await queryRunner.query(
      `CREATE INDEX "oid4vci_credential_configuration_tenant_idx" ON "oid4vci_credential_configuration" ("tenant_id", "created_at")`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "oid4vci_credential_configuration"`);
  }
}
