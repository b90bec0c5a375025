import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Fair webhook delivery (docs/webhooks.md): a subscription's circuit (paused until, and the pause that
 * doubles after each failed probe), the media type of the answer the delivery log keeps, and an index
 * of the deliveries in flight, which the claim counts per subscription and per tenant, and one of
 * the paused subscriptions, which a gauge counts.
 */
export class WebhookFairness1795792000000 implements MigrationInterface {
  name = 'WebhookFairness1795792000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "webhook_subscription" ADD "backoff_until" timestamptz`);
    await queryRunner.query(
      `ALTER TABLE "webhook_subscription" ADD "backoff_ms" integer NOT NULL DEFAULT 0`,
    );
    await queryRunner.query(
      `ALTER TABLE "webhook_attempt" ADD "response_content_type" varchar(100)`,
    );
    await queryRunner.query(
      `CREATE INDEX "webhook_delivery_leased_idx" ON "webhook_delivery" ("lease_until") WHERE "lease_until" IS NOT NULL`,
    );
    await queryRunner.query(
      `CREATE INDEX "webhook_subscription_paused_idx" ON "webhook_subscription" ("backoff_until") WHERE "backoff_until" IS NOT NULL`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "webhook_subscription_paused_idx"`);
    await queryRunner.query(`DROP INDEX "webhook_delivery_leased_idx"`);
    await queryRunner.query(`ALTER TABLE "webhook_attempt" DROP COLUMN "response_content_type"`);
    await queryRunner.query(`ALTER TABLE "webhook_subscription" DROP COLUMN "backoff_ms"`);
    await queryRunner.query(`ALTER TABLE "webhook_subscription" DROP COLUMN "backoff_until"`);
  }
}
