import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Issuing takes a status index by inserting its entry alone (docs/performance.md): no count on the
 * list's row, one open list per tenant and purpose (the others marked filled), and entries hang off
 * their tenant's row, which the issuance record already references, rather than the shared list row.
 */
export class StatusAllocationByEntry1795794000000 implements MigrationInterface {
  name = 'StatusAllocationByEntry1795794000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "credential_status_list" ADD "filled_at" timestamptz`);
    // Full lists, and every open list but the oldest of its tenant and purpose, which issues used.
    await queryRunner.query(`
      UPDATE "credential_status_list" l SET "filled_at" = now()
       WHERE l."allocated" >= l."length"
          OR EXISTS (SELECT 1 FROM "credential_status_list" o
                      WHERE o."tenant_id" = l."tenant_id" AND o."purpose" = l."purpose"
                        AND o."allocated" < o."length"
                        AND (o."created_at", o."id") < (l."created_at", l."id"))`);
    await queryRunner.query(`ALTER TABLE "credential_status_list" DROP COLUMN "allocated"`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "credential_status_list_open_idx" ON "credential_status_list" ("tenant_id", "purpose") WHERE "filled_at" IS NULL`,
    );
    await queryRunner.query(
      `ALTER TABLE "credential_status_entry" DROP CONSTRAINT "credential_status_entry_list_id_fkey"`,
    );
    await queryRunner.query(`
      ALTER TABLE "credential_status_entry" ADD CONSTRAINT "credential_status_entry_tenant_id_fkey"
        FOREIGN KEY ("tenant_id") REFERENCES "tenant"("id") ON DELETE CASCADE`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "credential_status_entry" DROP CONSTRAINT "credential_status_entry_tenant_id_fkey"`,
    );
    await queryRunner.query(`
      ALTER TABLE "credential_status_entry" ADD CONSTRAINT "credential_status_entry_list_id_fkey"
        FOREIGN KEY ("list_id") REFERENCES "credential_status_list"("id") ON DELETE CASCADE`);
    await queryRunner.query(`DROP INDEX "credential_status_list_open_idx"`);
    await queryRunner.query(
      `ALTER TABLE "credential_status_list" ADD "allocated" integer NOT NULL DEFAULT 0`,
    );
    await queryRunner.query(`
      UPDATE "credential_status_list" l SET "allocated" = CASE WHEN l."filled_at" IS NULL
        THEN (SELECT count(*) FROM "credential_status_entry" e WHERE e."list_id" = l."id")
        ELSE l."length" END`);
    await queryRunner.query(`ALTER TABLE "credential_status_list" DROP COLUMN "filled_at"`);
  }
}
