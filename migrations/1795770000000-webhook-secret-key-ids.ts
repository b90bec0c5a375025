import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Which master key sealed each webhook secret, as tenant_did records it for private keys, so that the
 * key can be rotated. Before this, a database had only ever one master key: the one its DIDs name.
 * Without any DID (only all-tenant subscriptions) the ids stay null, read as the current key.
 */
export class WebhookSecretKeyIds1795770000000 implements MigrationInterface {
  name = 'WebhookSecretKeyIds1795770000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "webhook_subscription" ADD "secret_master_key_id" varchar(32)`,
    );
    await queryRunner.query(
      `ALTER TABLE "webhook_subscription" ADD "previous_secret_master_key_id" varchar(32)`,
    );
    await queryRunner.query(`
      UPDATE "webhook_subscription" s
         SET "secret_master_key_id" = k.id,
             "previous_secret_master_key_id" =
               CASE WHEN s."previous_secret_sealed" IS NULL THEN NULL ELSE k.id END
        FROM (SELECT min("master_key_id") AS id FROM "tenant_did"
              HAVING count(DISTINCT "master_key_id") = 1) k`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "webhook_subscription" DROP COLUMN "previous_secret_master_key_id"`,
    );
    await queryRunner.query(
      `ALTER TABLE "webhook_subscription" DROP COLUMN "secret_master_key_id"`,
    );
  }
}
