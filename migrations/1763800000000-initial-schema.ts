import { type MigrationInterface, type QueryRunner } from 'typeorm';

export class InitialSchema1763800000000 implements MigrationInterface {
  name = 'InitialSchema1763800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "tenant" (
        "id" varchar(64) PRIMARY KEY CHECK ("id" ~ '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$'),
        "label" varchar(200) NOT NULL CHECK (char_length("label") >= 1),
        "image_url" varchar(2048),
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "updated_at" timestamptz NOT NULL DEFAULT now()
      )`);
    // Every sort order of the tenant list has an index, with the id as tie-breaker for stable pages.
    await queryRunner.query(
      `CREATE INDEX "tenant_created_at_idx" ON "tenant" ("created_at", "id")`,
    );
    await queryRunner.query(
      `CREATE INDEX "tenant_updated_at_idx" ON "tenant" ("updated_at", "id")`,
    );
    await queryRunner.query(`CREATE INDEX "tenant_label_idx" ON "tenant" ("label", "id")`);
    await queryRunner.query(`
      CREATE TABLE "tenant_did" (
        "did" varchar(128) PRIMARY KEY,
        "tenant_id" varchar(64) NOT NULL UNIQUE REFERENCES "tenant" ("id") ON DELETE CASCADE,
        "method" varchar(16) NOT NULL,
        "key_type" varchar(16) NOT NULL,
        "public_key" bytea NOT NULL,
        "private_key_sealed" bytea NOT NULL,
        "master_key_id" varchar(32) NOT NULL,
        "created_at" timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "tenant_did"`);
    await queryRunner.query(`DROP TABLE "tenant"`);
  }
}
