import { type MigrationInterface, type QueryRunner } from 'typeorm';

/** Bitstring status lists of each tenant and the entries its credentials hold in them. */
export class CredentialStatusLists1795600000000 implements MigrationInterface {
  name = 'CredentialStatusLists1795600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "credential_status_list" (
        "id" uuid NOT NULL,
        "tenant_id" varchar(64) NOT NULL,
        "purpose" varchar(16) NOT NULL,
        "length" integer NOT NULL,
        "allocated" integer NOT NULL DEFAULT 0,
        "bits" bytea NOT NULL,
        "version" integer NOT NULL DEFAULT 1,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "updated_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "credential_status_list_pkey" PRIMARY KEY ("id"),
        CONSTRAINT "credential_status_list_tenant_id_fkey" FOREIGN KEY ("tenant_id")
          REFERENCES "tenant"("id") ON DELETE CASCADE
      )`);
    await queryRunner.query(
      `CREATE INDEX "credential_status_list_tenant_purpose_idx" ON "credential_status_list" ("tenant_id", "purpose")`,
    );
    await queryRunner.query(`
      CREATE TABLE "credential_status_entry" (
        "list_id" uuid NOT NULL,
        "list_index" integer NOT NULL,
        "tenant_id" varchar(64) NOT NULL,
        "credential_id" text NOT NULL,
        "purpose" varchar(16) NOT NULL,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "credential_status_entry_pkey" PRIMARY KEY ("list_id", "list_index"),
        CONSTRAINT "credential_status_entry_list_id_fkey" FOREIGN KEY ("list_id")
          REFERENCES "credential_status_list"("id") ON DELETE CASCADE
      )`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "credential_status_entry_credential_idx" ON "credential_status_entry" ("tenant_id", "credential_id", "purpose")`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "credential_status_entry"`);
    await queryRunner.query(`DROP TABLE "credential_status_list"`);
  }
}
