import { type MigrationInterface, type QueryRunner } from 'typeorm';

/** Each tenant's X.509 trust anchors, which x5c chains of presented credentials end at (HAIP 1.0). */
export class TrustAnchors1795799350000 implements MigrationInterface {
  name = 'TrustAnchors1795799350000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "trust_anchor" (
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
        CONSTRAINT "trust_anchor_pkey" PRIMARY KEY ("id"),
        CONSTRAINT "trust_anchor_tenant_fingerprint_key" UNIQUE ("tenant_id", "fingerprint"),
        CONSTRAINT "trust_anchor_tenant_id_fkey" FOREIGN KEY ("tenant_id")
          REFERENCES "tenant"("id") ON DELETE CASCADE
      )`);
    await queryRunner.query(
      `CREATE INDEX "trust_anchor_tenant_idx" ON "trust_anchor" ("tenant_id", "created_at")`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "trust_anchor"`);
  }
}
