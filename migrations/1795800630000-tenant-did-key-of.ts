import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * did/ publishes the tenant's DID key, its private key sealed, so that the API's issue statement reads
 * the key that signs in the round trip that records the issue, not in one of its own
 * (docs/performance.md, "The W3C rows' stack floor"). SQL-standard body, as in
 * PublishedStatements1795799200000.
 */
export class TenantDidKeyOf1795800630000 implements MigrationInterface {
  name = 'TenantDidKeyOf1795800630000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE FUNCTION "tenant_did_key_of"(for_tenant varchar)
        RETURNS TABLE (did varchar, public_key bytea, private_key_sealed bytea,
                       master_key_id varchar)
        LANGUAGE sql STABLE ROWS 1
      BEGIN ATOMIC
        SELECT d.did, d.public_key, d.private_key_sealed, d.master_key_id
          FROM "tenant_did" d
         WHERE d.tenant_id = for_tenant;
      END`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP FUNCTION "tenant_did_key_of"(varchar)`);
  }
}
