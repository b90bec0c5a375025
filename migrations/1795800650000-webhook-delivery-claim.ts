import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * webhooks/: each claim of a delivery gets its own id, and an attempt's answer decides the delivery
 * only while the claim that sent it still holds it: a redelivery, or a lease that ran out and was
 * claimed again, leaves an earlier attempt's late answer in the log alone (docs/webhooks.md).
 */
export class WebhookDeliveryClaim1795800650000 implements MigrationInterface {
  name = 'WebhookDeliveryClaim1795800650000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "webhook_delivery" ADD COLUMN "claim_id" uuid`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "webhook_delivery" DROP COLUMN "claim_id"`);
  }
}
