import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * The notification events received for each issued offer, one row per offer and event: a repeat is
 * refused (docs/oid4vci.md). Offers notified before keep their last event in `notification`.
 */
export class Oid4vciNotificationEvents1795800230000 implements MigrationInterface {
  name = 'Oid4vciNotificationEvents1795800230000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "oid4vci_notification_event" (
        "offer_id" uuid NOT NULL,
        "event" varchar(32) NOT NULL,
        "created_at" timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT "oid4vci_notification_event_pkey" PRIMARY KEY ("offer_id", "event"),
        CONSTRAINT "oid4vci_notification_event_offer_id_fkey" FOREIGN KEY ("offer_id")
          REFERENCES "oid4vci_offer"("id") ON DELETE CASCADE
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "oid4vci_notification_event"`);
  }
}
