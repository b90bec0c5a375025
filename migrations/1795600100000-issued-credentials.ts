import { type MigrationInterface, type QueryRunner } from 'typeorm';

/** What a tenant issued: the record status management and listing need, never the claims. */
export class IssuedCredentials1795600100000 implements MigrationInterface {
  name = 'IssuedCredentials1795600100000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "issued_credential" (
        "tenant_id" varchar(64) NOT NULL,
        "id" text NOT NULL,
        "types" text[] NOT NULL,
        "cryptosuite" varchar(32) NOT NULL,
        "issued_by" varchar(255) NOT NULL,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "issued_credential_pkey" PRIMARY KEY ("tenant_id", "id"),
        CONSTRAINT "issued_credential_tenant_id_fkey" FOREIGN KEY ("tenant_id")
          REFERENCES "tenant"("id") ON DELETE CASCADE
      )`);
    await queryRunner.query(
      `CREATE INDEX "issued_credential_tenant_created_idx" ON "issued_credential" ("tenant_id", "created_at")`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "issued_credential"`);
  }
}
