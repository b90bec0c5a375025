import { type MigrationInterface, type QueryRunner } from 'typeorm';

/** The function's signature, the same in both directions (its body changes). */
const signature = `
      CREATE OR REPLACE FUNCTION "take_offer_for_issue"(
          for_offer uuid, for_token bytea, for_time timestamptz, new_ids text[],
          new_notification_id varchar)
        RETURNS TABLE (configuration jsonb, claims_sealed bytea, claims_master_key_id varchar,
                       claims_unsealed jsonb)
        LANGUAGE sql VOLATILE
      BEGIN ATOMIC`;

/**
 * oid4vci/offers/: `take_offer_for_issue` locks the offer by its id alone and tests the token, the
 * status and the time on the locked row. Tested in the lookup, they let PostgreSQL read the offer
 * through an open-offer index instead (every open offer of every tenant), which it does when the
 * statistics say few offers are open (docs/performance.md, "Keyed statements").
 */
export class OfferTakenByKey1795800640000 implements MigrationInterface {
  name = 'OfferTakenByKey1795800640000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`${signature}
        WITH taken AS MATERIALIZED (
          SELECT o.id, o.access_token_hash, o.status, o.expires_at, o.configuration, o.claims_sealed,
                 o.claims_master_key_id, o.claims_unsealed
            FROM "oid4vci_offer" o
           WHERE o.id = for_offer
             FOR NO KEY UPDATE)
        UPDATE "oid4vci_offer" AS offer
           SET status = 'issued', credential_ids = new_ids, notification_id = new_notification_id,
               claims_sealed = NULL, claims_master_key_id = NULL, claims_unsealed = NULL,
               updated_at = now()
          FROM taken
         WHERE offer.id = for_offer AND taken.id = offer.id
           AND taken.access_token_hash = for_token AND taken.status = 'accepted'
           AND taken.expires_at > for_time
        RETURNING taken.configuration, taken.claims_sealed, taken.claims_master_key_id,
                  taken.claims_unsealed;
      END`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`${signature}
        UPDATE "oid4vci_offer" AS offer
           SET status = 'issued', credential_ids = new_ids, notification_id = new_notification_id,
               claims_sealed = NULL, claims_master_key_id = NULL, claims_unsealed = NULL,
               updated_at = now()
          FROM (SELECT o.id, o.configuration, o.claims_sealed, o.claims_master_key_id,
                       o.claims_unsealed
                  FROM "oid4vci_offer" o
                 WHERE o.id = for_offer AND o.access_token_hash = for_token
                   AND o.status = 'accepted' AND o.expires_at > for_time
                   FOR UPDATE) AS taken
         WHERE offer.id = taken.id
        RETURNING taken.configuration, taken.claims_sealed, taken.claims_master_key_id,
                  taken.claims_unsealed;
      END`);
  }
}
