import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * OpenID4VP presentation requests: the DCQL query, the nonce and state a wallet answers to, the sealed
 * reference and response key, and the outcome with its disclosed claims (sealed, erased after the
 * retention time) (docs/oid4vp.md).
 */
export class Oid4vpRequests1795798000000 implements MigrationInterface {
  name = 'Oid4vpRequests1795798000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "oid4vp_request" (
        "id" uuid NOT NULL,
        "tenant_id" varchar(64) NOT NULL,
        "status" varchar(16) NOT NULL,
        "dcql_query" jsonb NOT NULL,
        "response_mode" varchar(32) NOT NULL,
        "request_uri_method" varchar(8) NOT NULL,
        "trusted_issuers" jsonb,
        "client_id" varchar(256) NOT NULL,
        "nonce" varchar(64) NOT NULL,
        "state" varchar(64) NOT NULL,
        "reference_hash" bytea NOT NULL,
        "secrets_sealed" bytea NOT NULL,
        "master_key_id" varchar(64),
        "outcome_code" varchar(64),
        "outcome_reason" varchar(1024),
        "presented" jsonb,
        "claims_sealed" bytea,
        "claims_master_key_id" varchar(64),
        "claims_erased_at" timestamptz,
        "expires_at" timestamptz NOT NULL,
        "ended_at" timestamptz,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "oid4vp_request_pkey" PRIMARY KEY ("id"),
        CONSTRAINT "oid4vp_request_tenant_id_fkey" FOREIGN KEY ("tenant_id")
          REFERENCES "tenant"("id") ON DELETE CASCADE
      )`);
    await queryRunner.query(
      `CREATE INDEX "oid4vp_request_tenant_idx" ON "oid4vp_request" ("tenant_id", "created_at", "id")`,
    );
    await queryRunner.query(
      `CREATE UNIQUE INDEX "oid4vp_request_reference_idx" ON "oid4vp_request" ("reference_hash")`,
    );
    // The expiry job's work: pending requests past their time.
    await queryRunner.query(
      `CREATE INDEX "oid4vp_request_pending_expiry_idx" ON "oid4vp_request" ("expires_at")
         WHERE "status" = 'pending'`,
    );
    // The retention job's work: ended requests that still hold disclosed claims.
    await queryRunner.query(
      `CREATE INDEX "oid4vp_request_claims_idx" ON "oid4vp_request" ("ended_at")
         WHERE "claims_sealed" IS NOT NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "oid4vp_request"`);
  }
}
