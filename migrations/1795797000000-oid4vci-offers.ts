import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * OpenID4VCI credential offers with their pre-authorized code, transaction code and access token, and
 * the nonces the credential endpoint spends (docs/oid4vci.md).
 */
export class Oid4vciOffers1795797000000 implements MigrationInterface {
  name = 'Oid4vciOffers1795797000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "oid4vci_offer" (
        "id" uuid NOT NULL,
        "tenant_id" varchar(64) NOT NULL,
        "configuration_id" varchar(64) NOT NULL,
        "configuration" jsonb NOT NULL,
        "claims" jsonb,
        "status" varchar(16) NOT NULL,
        "by_value" boolean NOT NULL,
        "secrets_sealed" bytea NOT NULL,
        "master_key_id" varchar(64),
        "pre_authorized_code_hash" bytea NOT NULL,
        "reference_hash" bytea NOT NULL,
        "tx_code" jsonb,
        "tx_code_hash" bytea,
        "tx_code_failures" integer NOT NULL DEFAULT 0,
        "access_token_hash" bytea,
        "access_token_expires_at" timestamptz,
        "dpop_jkt" varchar(64),
        "notification_id" varchar(64),
        "notification" varchar(32),
        "failure" varchar(64),
        "credential_ids" text[] NOT NULL DEFAULT '{}',
        "expires_at" timestamptz NOT NULL,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "updated_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "oid4vci_offer_pkey" PRIMARY KEY ("id"),
        CONSTRAINT "oid4vci_offer_tenant_id_fkey" FOREIGN KEY ("tenant_id")
          REFERENCES "tenant"("id") ON DELETE CASCADE
      )`);
    await queryRunner.query(
      `CREATE INDEX "oid4vci_offer_tenant_idx" ON "oid4vci_offer" ("tenant_id", "created_at")`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "oid4vci_offer_code_idx" ON "oid4vci_offer" ("pre_authorized_code_hash")`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "oid4vci_offer_reference_idx" ON "oid4vci_offer" ("reference_hash")`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "oid4vci_offer_access_token_idx" ON "oid4vci_offer" ("access_token_hash")`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "oid4vci_offer_notification_idx" ON "oid4vci_offer" ("notification_id")`,
    );
    // The expiry job's work: open offers past their time.
    await queryRunner.query(
      `CREATE INDEX "oid4vci_offer_open_expiry_idx" ON "oid4vci_offer" ("expires_at")
         WHERE "status" IN ('offered', 'accepted')`,
    );
    await queryRunner.query(`
      CREATE TABLE "oid4vci_nonce" (
        "nonce_hash" bytea NOT NULL,
        "tenant_id" varchar(64) NOT NULL,
        "expires_at" timestamptz NOT NULL,
        CONSTRAINT "oid4vci_nonce_pkey" PRIMARY KEY ("nonce_hash"),
        CONSTRAINT "oid4vci_nonce_tenant_id_fkey" FOREIGN KEY ("tenant_id")
          REFERENCES "tenant"("id") ON DELETE CASCADE
      )`);
    await queryRunner.query(
      `CREATE INDEX "oid4vci_nonce_expiry_idx" ON "oid4vci_nonce" ("expires_at")`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "oid4vci_nonce"`);
    await queryRunner.query(`DROP TABLE "oid4vci_offer"`);
  }
}
