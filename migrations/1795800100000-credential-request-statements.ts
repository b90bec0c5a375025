import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * What the credential endpoint's statements call of other owners' tables (docs/architecture.md, "Data:
 * one owner per table"): the offer's one issue, from oid4vci/offers/, the tenant's signing key, from
 * did/, and its active certificate, from certificates/, read with the token's offer. SQL-standard
 * bodies, as in PublishedStatements1795799200000.
 */
export class CredentialRequestStatements1795800100000 implements MigrationInterface {
  name = 'CredentialRequestStatements1795800100000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // oid4vci/offers/: takes the accepted offer for its one credential request and marks it issued,
    // its claims dropped, answering what was there before; no row when it is not accepted, not the
    // token's or past its end. The row's lock holds a concurrent request until this one ends.
    await queryRunner.query(`
      CREATE FUNCTION "take_offer_for_issue"(
          for_offer uuid, for_token bytea, for_time timestamptz, new_ids text[],
          new_notification_id varchar)
        RETURNS TABLE (configuration jsonb, claims_sealed bytea, claims_master_key_id varchar,
                       claims_unsealed jsonb)
        LANGUAGE sql VOLATILE
      BEGIN ATOMIC
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
    // did/: the tenant's signing key of an algorithm (ES256), its private key sealed.
    await queryRunner.query(`
      CREATE FUNCTION "tenant_signing_key_of"(for_tenant varchar, for_algorithm varchar)
        RETURNS TABLE (kid varchar, algorithm varchar, public_jwk jsonb, private_key_sealed bytea,
                       master_key_id varchar)
        LANGUAGE sql STABLE
      BEGIN ATOMIC
        SELECT k.kid, k.algorithm, k.public_jwk, k.private_key_sealed, k.master_key_id
          FROM "tenant_signing_key" k
         WHERE k.tenant_id = for_tenant AND k.algorithm = for_algorithm;
      END`);
    // certificates/: the tenant's active certificate chain (HAIP 1.0 `x5c`) and its validity.
    await queryRunner.query(`
      CREATE FUNCTION "active_certificate_of"(for_tenant varchar)
        RETURNS TABLE (x5c jsonb, not_before timestamptz, not_after timestamptz)
        LANGUAGE sql STABLE
      BEGIN ATOMIC
        SELECT c.x5c, c.not_before, c.not_after
          FROM "tenant_certificate" c
         WHERE c.tenant_id = for_tenant AND c.status = 'active';
      END`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP FUNCTION "active_certificate_of"(varchar)`);
    await queryRunner.query(`DROP FUNCTION "tenant_signing_key_of"(varchar, varchar)`);
    await queryRunner.query(
      `DROP FUNCTION "take_offer_for_issue"(uuid, bytea, timestamptz, text[], varchar)`,
    );
  }
}
