import { type MigrationInterface, type QueryRunner } from 'typeorm';

/** Each tenant's further signing keys (ES256 for SD-JWT VCs), the private key sealed like the DID's. */
export class TenantSigningKeys1795795000000 implements MigrationInterface {
  name = 'TenantSigningKeys1795795000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "tenant_signing_key" (
        "id" uuid NOT NULL,
        "tenant_id" varchar(64) NOT NULL,
        "kid" varchar(64) NOT NULL,
        "algorithm" varchar(16) NOT NULL,
        "public_jwk" jsonb NOT NULL,
        "private_key_sealed" bytea NOT NULL,
        "master_key_id" varchar(32) NOT NULL,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "tenant_signing_key_pkey" PRIMARY KEY ("id"),
        CONSTRAINT "tenant_signing_key_tenant_algorithm_key" UNIQUE ("tenant_id", "algorithm"),
        CONSTRAINT "tenant_signing_key_tenant_kid_key" UNIQUE ("tenant_id", "kid"),
        CONSTRAINT "tenant_signing_key_tenant_id_fkey" FOREIGN KEY ("tenant_id")
          REFERENCES "tenant"("id") ON DELETE CASCADE
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "tenant_signing_key"`);
  }
}
