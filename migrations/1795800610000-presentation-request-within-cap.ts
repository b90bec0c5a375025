import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * oid4vp/requests/: a new presentation request inserted only while the tenant keeps fewer than `cap`
 * pending, in one round trip, as OfferWithinCap1795800600000 does for offers: the tenant's
 * request-count lock (database/tenant-count-lock.ts), then the count and the insert, each with its own
 * snapshot. True when inserted, null when full.
 */
export class PresentationRequestWithinCap1795800610000 implements MigrationInterface {
  name = 'PresentationRequestWithinCap1795800610000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE FUNCTION "insert_presentation_request_within_cap"(
          new_request jsonb, cap integer, at_time timestamptz)
        RETURNS boolean
        LANGUAGE sql VOLATILE
      BEGIN ATOMIC
        SELECT pg_advisory_xact_lock(hashtext('oid4vp_request'), hashtext(new_request->>'tenant_id'));
        INSERT INTO "oid4vp_request" (id, tenant_id, status, dcql_query, response_mode,
                                      request_uri_method, trusted_issuers, redirect_uri,
                                      expected_origins, client_id, nonce, state, reference_hash,
                                      secrets_sealed, master_key_id, expires_at)
        SELECT r.id, r.tenant_id, 'pending', r.dcql_query, r.response_mode, r.request_uri_method,
               r.trusted_issuers, r.redirect_uri, r.expected_origins, r.client_id, r.nonce, r.state,
               r.reference_hash, r.secrets_sealed, r.master_key_id, r.expires_at
          FROM jsonb_populate_record(NULL::"oid4vp_request", new_request) AS r
         WHERE (SELECT count(*) FROM "oid4vp_request" c
                 WHERE c.tenant_id = r.tenant_id AND c.status = 'pending'
                   AND c.expires_at > at_time) < cap
        RETURNING true;
      END`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `DROP FUNCTION "insert_presentation_request_within_cap"(jsonb, integer, timestamptz)`,
    );
  }
}
