import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Where a same-device presentation request sends the person's browser once verified (OpenID4VP 1.0
 * §8.2), and the SHA-256 of the one `response_code` the response endpoint appended to it.
 */
export class Oid4vpRedirectUri1795799250000 implements MigrationInterface {
  name = 'Oid4vpRedirectUri1795799250000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "oid4vp_request" ADD "redirect_uri" character varying(2048)`,
    );
    await queryRunner.query(`ALTER TABLE "oid4vp_request" ADD "response_code_hash" bytea`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "oid4vp_request" DROP COLUMN "response_code_hash"`);
    await queryRunner.query(`ALTER TABLE "oid4vp_request" DROP COLUMN "redirect_uri"`);
  }
}
