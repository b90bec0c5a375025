import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Each tenant's trusted wallet providers and attestation setting, and the one-time proof ids every
 * instance shares (docs/wallet-providers.md).
 */
export class WalletProviders1795800210000 implements MigrationInterface {
  name = 'WalletProviders1795800210000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "wallet_provider" (
        "id" uuid NOT NULL,
        "tenant_id" varchar(64) NOT NULL,
        "label" varchar(200),
        "fingerprint" char(64) NOT NULL,
        "certificate" text NOT NULL,
        "subject" text NOT NULL,
        "issuer" text NOT NULL,
        "not_before" timestamptz NOT NULL,
        "not_after" timestamptz NOT NULL,
        "subject_key_identifier" varchar(128),
        "created_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "wallet_provider_pkey" PRIMARY KEY ("id"),
        CONSTRAINT "wallet_provider_tenant_fingerprint_key" UNIQUE ("tenant_id", "fingerprint"),
        CONSTRAINT "wallet_provider_tenant_id_fkey" FOREIGN KEY ("tenant_id")
          REFERENCES "tenant"("id") ON DELETE CASCADE
      )`);
    await queryRunner.query(
      `CREATE INDEX "wallet_provider_tenant_idx" ON "wallet_provider" ("tenant_id", "created_at")`,
    );
    await queryRunner.query(`
      CREATE TABLE "wallet_attestation_policy" (
        "tenant_id" varchar(64) NOT NULL,
        "wallet_attestation" varchar(16) NOT NULL,
        "updated_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "wallet_attestation_policy_pkey" PRIMARY KEY ("tenant_id"),
        CONSTRAINT "wallet_attestation_policy_tenant_id_fkey" FOREIGN KEY ("tenant_id")
          REFERENCES "tenant"("id") ON DELETE CASCADE
      )`);
    await queryRunner.query(`
      CREATE TABLE "spent_proof_jti" (
        "kind" varchar(32) NOT NULL,
        "tenant_id" varchar(64) NOT NULL,
        "jti_hash" bytea NOT NULL,
        "expires_at" timestamptz NOT NULL,
        CONSTRAINT "spent_proof_jti_pkey" PRIMARY KEY ("kind", "tenant_id", "jti_hash")
      )`);
    await queryRunner.query(
      `CREATE INDEX "spent_proof_jti_expiry_idx" ON "spent_proof_jti" ("expires_at")`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "spent_proof_jti"`);
    await queryRunner.query(`DROP TABLE "wallet_attestation_policy"`);
    await queryRunner.query(`DROP TABLE "wallet_provider"`);
  }
}
