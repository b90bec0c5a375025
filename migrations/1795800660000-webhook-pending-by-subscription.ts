import { type MigrationInterface, type QueryRunner } from 'typeorm';

const name = 'webhook_delivery_pending_idx';

/**
 * webhooks/: the claim picks each subscription's oldest due deliveries up to its room, reading the
 * subscriptions with pending deliveries one index probe each, so that one subscription's long backlog
 * neither fills what the claim looks at nor is walked by it (docs/webhooks.md, Fairness).
 *
 * Built CONCURRENTLY, so outside a transaction: the previous release keeps writing deliveries while a
 * large queue is indexed (docs/operations.md, Database and migrations).
 */
export class WebhookPendingBySubscription1795800660000 implements MigrationInterface {
  name = 'WebhookPendingBySubscription1795800660000';
  transaction = false;

  async up(queryRunner: QueryRunner): Promise<void> {
    // A build that was interrupted leaves an invalid index of that name, which IF NOT EXISTS would keep.
    const [leftover] = (await queryRunner.query(
      `SELECT i.indisvalid AS valid FROM pg_index i WHERE i.indexrelid = to_regclass(quote_ident($1))`,
      [name],
    )) as { valid: boolean }[];
    if (leftover?.valid === false) await queryRunner.query(`DROP INDEX CONCURRENTLY "${name}"`);
    await queryRunner.query(
      `CREATE INDEX CONCURRENTLY IF NOT EXISTS "${name}"
         ON "webhook_delivery" ("subscription_id", "next_attempt_at") WHERE "state" = 'pending'`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // TypeORM reverts in a transaction, where CONCURRENTLY is refused; dropping an index is quick.
    await queryRunner.query(`DROP INDEX "${name}"`);
  }
}
