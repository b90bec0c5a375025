import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * oid4vci/offers/: a new offer inserted only while the tenant keeps fewer than `cap` open, in one
 * round trip. The same advisory lock as every capped create of offers (database/tenant-count-lock.ts),
 * then the count and the insert, each statement of a VOLATILE function with its own snapshot, so the
 * count sees every offer committed before the lock was granted. True when inserted, null when full.
 */
export class OfferWithinCap1795800600000 implements MigrationInterface {
  name = 'OfferWithinCap1795800600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE FUNCTION "insert_offer_within_cap"(new_offer jsonb, cap integer, at_time timestamptz)
        RETURNS boolean
        LANGUAGE sql VOLATILE
      BEGIN ATOMIC
        SELECT pg_advisory_xact_lock(hashtext('oid4vci_offer'), hashtext(new_offer->>'tenant_id'));
        INSERT INTO "oid4vci_offer" (id, tenant_id, configuration_id, configuration, claims_sealed,
                                     claims_master_key_id, status, by_value, secrets_sealed,
                                     master_key_id, pre_authorized_code_hash, grant_type, subject,
                                     reference_hash, tx_code, tx_code_hash, expires_at)
        SELECT o.id, o.tenant_id, o.configuration_id, o.configuration, o.claims_sealed,
               o.claims_master_key_id, 'offered', o.by_value, o.secrets_sealed, o.master_key_id,
               o.pre_authorized_code_hash, o.grant_type, o.subject, o.reference_hash, o.tx_code,
               o.tx_code_hash, o.expires_at
          FROM jsonb_populate_record(NULL::"oid4vci_offer", new_offer) AS o
         WHERE (SELECT count(*) FROM "oid4vci_offer" c
                 WHERE c.tenant_id = o.tenant_id AND c.status IN ('offered', 'accepted')
                   AND c.expires_at > at_time) < cap
        RETURNING true;
      END`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP FUNCTION "insert_offer_within_cap"(jsonb, integer, timestamptz)`);
  }
}
