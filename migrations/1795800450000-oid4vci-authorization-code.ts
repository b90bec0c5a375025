import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * The authorization code flow of OpenID4VCI 1.0 §5 (docs/oid4vci.md): one row per authorization, from
 * its pushed request (RFC 9126) through the person's login to its single-use code; offers name their
 * grant and may pin the person; configurations say which credential claims come from the login.
 */
export class Oid4vciAuthorizationCode1795800450000 implements MigrationInterface {
  name = 'Oid4vciAuthorizationCode1795800450000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "oid4vci_authorization" (
        "id" uuid NOT NULL,
        "tenant_id" varchar(64) NOT NULL,
        "state" varchar(16) NOT NULL,
        "request_uri_hash" bytea NOT NULL,
        "login_state_hash" bytea,
        "code_hash" bytea,
        "client_id" varchar(255) NOT NULL,
        "redirect_uri" varchar(2048) NOT NULL,
        "wallet_state" varchar(512),
        "code_challenge" varchar(128) NOT NULL,
        "dpop_jkt" varchar(64),
        "configuration_id" varchar(64) NOT NULL,
        "offer_id" uuid,
        "by_authorization_details" boolean NOT NULL,
        "login_sealed" bytea,
        "login_master_key_id" varchar(64),
        "claims_sealed" bytea,
        "claims_master_key_id" varchar(64),
        "expires_at" timestamptz NOT NULL,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "oid4vci_authorization_pkey" PRIMARY KEY ("id"),
        CONSTRAINT "oid4vci_authorization_tenant_id_fkey" FOREIGN KEY ("tenant_id")
          REFERENCES "tenant"("id") ON DELETE CASCADE
      )`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "oid4vci_authorization_request_uri_idx" ON "oid4vci_authorization" ("request_uri_hash")`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "oid4vci_authorization_login_state_idx" ON "oid4vci_authorization" ("login_state_hash")`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "oid4vci_authorization_code_idx" ON "oid4vci_authorization" ("code_hash")`,
    );
    await queryRunner.query(
      `CREATE INDEX "oid4vci_authorization_expiry_idx" ON "oid4vci_authorization" ("expires_at")`,
    );
    await queryRunner.query(
      `ALTER TABLE "oid4vci_offer" ADD "grant_type" varchar(24) NOT NULL DEFAULT 'pre-authorized_code'`,
    );
    await queryRunner.query(`ALTER TABLE "oid4vci_offer" ADD "subject" varchar(255)`);
    await queryRunner.query(
      `ALTER TABLE "oid4vci_credential_configuration" ADD "claims_from_login" jsonb`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "oid4vci_credential_configuration" DROP COLUMN "claims_from_login"`,
    );
    await queryRunner.query(`ALTER TABLE "oid4vci_offer" DROP COLUMN "subject"`);
    await queryRunner.query(`ALTER TABLE "oid4vci_offer" DROP COLUMN "grant_type"`);
    await queryRunner.query(`DROP TABLE "oid4vci_authorization"`);
  }
}
