import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Webhooks: subscriptions, the outbox of events (written in the transaction of the change), one
 * delivery per event and subscription (its id is the `webhook-id`), and the log of each attempt.
 */
export class Webhooks1795700000000 implements MigrationInterface {
  name = 'Webhooks1795700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "webhook_subscription" (
        "id" uuid NOT NULL,
        "tenant_id" varchar(64),
        "url" varchar(2048) NOT NULL,
        "events" text[] NOT NULL DEFAULT '{}',
        "description" varchar(500),
        "enabled" boolean NOT NULL DEFAULT true,
        "secret_sealed" bytea NOT NULL,
        "previous_secret_sealed" bytea,
        "previous_secret_until" timestamptz,
        "consecutive_failures" integer NOT NULL DEFAULT 0,
        "disabled_reason" varchar(200),
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "updated_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "webhook_subscription_pkey" PRIMARY KEY ("id"),
        CONSTRAINT "webhook_subscription_tenant_id_fkey" FOREIGN KEY ("tenant_id")
          REFERENCES "tenant"("id") ON DELETE CASCADE
      )`);
    await queryRunner.query(
      `CREATE INDEX "webhook_subscription_tenant_idx" ON "webhook_subscription" ("tenant_id", "created_at")`,
    );
    await queryRunner.query(`
      CREATE TABLE "webhook_event" (
        "id" uuid NOT NULL,
        "tenant_id" varchar(64),
        "type" varchar(64) NOT NULL,
        "body" text NOT NULL,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "webhook_event_pkey" PRIMARY KEY ("id")
      )`);
    await queryRunner.query(
      `CREATE INDEX "webhook_event_created_idx" ON "webhook_event" ("created_at")`,
    );
    await queryRunner.query(`
      CREATE TABLE "webhook_delivery" (
        "id" uuid NOT NULL,
        "subscription_id" uuid NOT NULL,
        "event_id" uuid NOT NULL,
        "state" varchar(16) NOT NULL DEFAULT 'pending',
        "attempts" integer NOT NULL DEFAULT 0,
        "next_attempt_at" timestamptz NOT NULL DEFAULT now(),
        "lease_until" timestamptz,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        "finished_at" timestamptz,
        CONSTRAINT "webhook_delivery_pkey" PRIMARY KEY ("id"),
        CONSTRAINT "webhook_delivery_subscription_id_fkey" FOREIGN KEY ("subscription_id")
          REFERENCES "webhook_subscription"("id") ON DELETE CASCADE,
        CONSTRAINT "webhook_delivery_event_id_fkey" FOREIGN KEY ("event_id")
          REFERENCES "webhook_event"("id") ON DELETE CASCADE
      )`);
    await queryRunner.query(
      `CREATE INDEX "webhook_delivery_due_idx" ON "webhook_delivery" ("next_attempt_at") WHERE "state" = 'pending'`,
    );
    await queryRunner.query(
      `CREATE INDEX "webhook_delivery_subscription_idx" ON "webhook_delivery" ("subscription_id", "created_at")`,
    );
    await queryRunner.query(
      `CREATE INDEX "webhook_delivery_event_idx" ON "webhook_delivery" ("event_id")`,
    );
    await queryRunner.query(`
      CREATE TABLE "webhook_attempt" (
        "id" bigserial NOT NULL,
        "delivery_id" uuid NOT NULL,
        "attempt" integer NOT NULL,
        "started_at" timestamptz NOT NULL,
        "status_code" integer,
        "duration_ms" integer NOT NULL,
        "error" varchar(500),
        "response_excerpt" varchar(1024),
        CONSTRAINT "webhook_attempt_pkey" PRIMARY KEY ("id"),
        CONSTRAINT "webhook_attempt_delivery_id_fkey" FOREIGN KEY ("delivery_id")
          REFERENCES "webhook_delivery"("id") ON DELETE CASCADE
      )`);
    await queryRunner.query(
      `CREATE INDEX "webhook_attempt_delivery_idx" ON "webhook_attempt" ("delivery_id", "attempt")`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "webhook_attempt"`);
    await queryRunner.query(`DROP TABLE "webhook_delivery"`);
    await queryRunner.query(`DROP TABLE "webhook_event"`);
    await queryRunner.query(`DROP TABLE "webhook_subscription"`);
  }
}
