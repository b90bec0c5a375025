import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * What a feature's tables offer another feature's statement, each over its owner's tables alone
 * (docs/architecture.md, "Data: one owner per table"): the issue statement takes its status entries
 * and writes its event through these, in its one round trip, and the records page reads the entries'
 * bits. SQL-standard bodies (`BEGIN ATOMIC`) are parsed here, so PostgreSQL records the tables each
 * depends on and refuses a later change that would break one.
 */
export class PublishedStatements1795799200000 implements MigrationInterface {
  name = 'PublishedStatements1795799200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // credentials/status/: for each purpose (n-th), the first free of its candidates (n-th row of
    // the 2-D array) in the tenant's open list; a pick a concurrent issue took meanwhile is left out.
    await queryRunner.query(`
      CREATE FUNCTION "allocate_status_entries"(
          for_tenant varchar, for_credential text, purposes varchar[], candidates integer[])
        RETURNS TABLE (purpose varchar, list_id uuid, list_index integer)
        LANGUAGE sql VOLATILE
      BEGIN ATOMIC
        INSERT INTO "credential_status_entry" (list_id, list_index, tenant_id, credential_id, purpose)
        SELECT l.id, c.i, l.tenant_id, for_credential, l.purpose
          FROM unnest(purposes) WITH ORDINALITY p(purpose, n)
          JOIN "credential_status_list" l
            ON l.tenant_id = for_tenant AND l.purpose = p.purpose AND l.filled_at IS NULL
         CROSS JOIN LATERAL (
           SELECT i FROM unnest(candidates[p.n : p.n]) i
            WHERE (SELECT true FROM "credential_status_entry" e
                    WHERE e.list_id = l.id AND e.list_index = i) IS NULL
            LIMIT 1) c
         ORDER BY p.n
        ON CONFLICT (list_id, list_index) DO NOTHING
        RETURNING purpose, list_id, list_index;
      END`);
    // credentials/status/: each status entry with its bit (Bitstring Status List §2.1: a list counts
    // its bits from the most significant, get_bit a byte's from the least). A left join on the list's
    // key, which PostgreSQL leaves out of a plan that reads no bit (the records' count).
    await queryRunner.query(`
      CREATE VIEW "credential_status" AS
      SELECT e.tenant_id, e.credential_id, e.purpose, e.list_id, e.list_index,
             get_bit(l.bits, (e.list_index / 8) * 8 + 7 - e.list_index % 8) = 1 AS is_set
        FROM "credential_status_entry" e
        LEFT JOIN "credential_status_list" l ON l.id = e.list_id`);
    // webhooks/: the event's row (id, tenant_id, type, body as one jsonb object) and one delivery per
    // enabled subscription that wants it; answers how many deliveries.
    await queryRunner.query(`
      CREATE FUNCTION "enqueue_webhook_event"(event_row jsonb) RETURNS integer
        LANGUAGE sql VOLATILE
      BEGIN ATOMIC
        WITH event AS (
          INSERT INTO "webhook_event" (id, tenant_id, type, body)
          SELECT e.id, e.tenant_id, e.type, e.body
            FROM jsonb_to_record(event_row) AS e(id uuid, tenant_id varchar, type varchar, body text)
          RETURNING id, tenant_id, type),
        deliveries AS (
          INSERT INTO "webhook_delivery" (id, subscription_id, event_id)
          SELECT gen_random_uuid(), s.id, event.id FROM "webhook_subscription" s, event
           WHERE s.enabled AND (s.tenant_id = event.tenant_id OR s.tenant_id IS NULL)
             AND (cardinality(s.events) = 0 OR event.type = ANY (s.events))
          RETURNING id)
        SELECT count(*)::integer FROM deliveries;
      END`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP FUNCTION "enqueue_webhook_event"(jsonb)`);
    await queryRunner.query(`DROP VIEW "credential_status"`);
    await queryRunner.query(
      `DROP FUNCTION "allocate_status_entries"(varchar, text, varchar[], integer[])`,
    );
  }
}
