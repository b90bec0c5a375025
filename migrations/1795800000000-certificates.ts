import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * X.509 certificates for each tenant's ES256 key (HAIP 1.0 `x5c`), at most one active per tenant, and
 * the service's certificate authority, its private key sealed like the tenants' (docs/certificates.md).
 */
export class Certificates1795800000000 implements MigrationInterface {
  name = 'Certificates1795800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "tenant_certificate" (
        "id" uuid NOT NULL,
        "tenant_id" varchar(64) NOT NULL,
        "status" varchar(16) NOT NULL,
        "source" varchar(16) NOT NULL,
        "kid" varchar(64) NOT NULL,
        "subject" varchar(1024) NOT NULL,
        "issuer" varchar(1024) NOT NULL,
        "serial_number" varchar(64) NOT NULL,
        "dns_names" jsonb NOT NULL,
        "uris" jsonb NOT NULL,
        "x5c" jsonb NOT NULL,
        "not_before" timestamptz NOT NULL,
        "not_after" timestamptz NOT NULL,
        "expiring_notified_at" timestamptz,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "tenant_certificate_pkey" PRIMARY KEY ("id"),
        CONSTRAINT "tenant_certificate_status_check"
          CHECK ("status" IN ('active', 'superseded', 'expired')),
        CONSTRAINT "tenant_certificate_source_check" CHECK ("source" IN ('authority', 'imported')),
        CONSTRAINT "tenant_certificate_tenant_id_fkey" FOREIGN KEY ("tenant_id")
          REFERENCES "tenant"("id") ON DELETE CASCADE
      )`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "tenant_certificate_one_active" ON "tenant_certificate" ("tenant_id") WHERE "status" = 'active'`,
    );
    await queryRunner.query(
      `CREATE INDEX "tenant_certificate_tenant_idx" ON "tenant_certificate" ("tenant_id", "created_at")`,
    );
    await queryRunner.query(
      `CREATE INDEX "tenant_certificate_active_expiry_idx" ON "tenant_certificate" ("not_after") WHERE "status" = 'active'`,
    );
    await queryRunner.query(`
      CREATE TABLE "certificate_authority" (
        "id" uuid NOT NULL,
        "source" varchar(16) NOT NULL,
        "fingerprint" varchar(64) NOT NULL,
        "chain" jsonb NOT NULL,
        "private_key_sealed" bytea NOT NULL,
        "master_key_id" varchar(32) NOT NULL,
        "current" boolean NOT NULL,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "certificate_authority_pkey" PRIMARY KEY ("id"),
        CONSTRAINT "certificate_authority_fingerprint_key" UNIQUE ("fingerprint"),
        CONSTRAINT "certificate_authority_source_check"
          CHECK ("source" IN ('configured', 'development'))
      )`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "certificate_authority_one_current" ON "certificate_authority" ("current") WHERE "current"`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "certificate_authority"`);
    await queryRunner.query(`DROP TABLE "tenant_certificate"`);
  }
}
