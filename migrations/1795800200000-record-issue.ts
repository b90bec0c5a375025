import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * credentials/issuing/ publishes its issue record as a function, so that the OpenID4VCI credential
 * endpoint takes its offer and records its credentials in one statement without a transaction around
 * them (docs/performance.md): the issuance record, its credential.issued event with its deliveries and
 * its status entries at the first free of their candidates, answering what the entries took. The API's
 * issue statement calls the same function. SQL-standard body, as in PublishedStatements1795799200000.
 */
export class RecordIssue1795800200000 implements MigrationInterface {
  name = 'RecordIssue1795800200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE FUNCTION "record_issue"(
          for_tenant varchar, new_id varchar, new_types text[], new_cryptosuite varchar,
          by_whom varchar, new_format varchar, for_offer uuid, for_configuration varchar,
          purposes varchar[], candidates integer[], event_row jsonb)
        RETURNS json
        LANGUAGE sql VOLATILE
      BEGIN ATOMIC
        INSERT INTO "issued_credential"
            (tenant_id, id, types, cryptosuite, issued_by, format, offer_id, configuration_id)
        VALUES (for_tenant, new_id, new_types, new_cryptosuite, by_whom, new_format, for_offer,
                for_configuration);
        SELECT enqueue_webhook_event(event_row);
        SELECT json_object_agg(e.purpose, json_build_object('list_id', e.list_id,
                                                           'list_index', e.list_index))
          FROM allocate_status_entries(for_tenant, new_id, purposes, candidates) e;
      END`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `DROP FUNCTION "record_issue"(varchar, varchar, text[], varchar, varchar, varchar, uuid,
                                    varchar, varchar[], integer[], jsonb)`,
    );
  }
}
