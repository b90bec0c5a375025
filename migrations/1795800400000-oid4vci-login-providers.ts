import { type MigrationInterface, type QueryRunner } from 'typeorm';

/** Each tenant's login provider for authorization-code issuance, its client secret sealed (docs/login-provider.md). */
export class Oid4vciLoginProviders1795800400000 implements MigrationInterface {
  name = 'Oid4vciLoginProviders1795800400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "oid4vci_login_provider" (
        "tenant_id" varchar(64) NOT NULL,
        "issuer" varchar(2048) NOT NULL,
        "client_id" varchar(255) NOT NULL,
        "client_secret_sealed" bytea NOT NULL,
        "master_key_id" varchar(64),
        "scopes" text[] NOT NULL,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "oid4vci_login_provider_pkey" PRIMARY KEY ("tenant_id"),
        CONSTRAINT "oid4vci_login_provider_tenant_id_fkey" FOREIGN KEY ("tenant_id")
          REFERENCES "tenant"("id") ON DELETE CASCADE
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "oid4vci_login_provider"`);
  }
}
