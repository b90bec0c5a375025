import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * Presentation requests answered over the Digital Credentials API (OpenID4VP 1.0 appendix A,
 * docs/oid4vp.md): the web origins the relying party's page may call from; null for redirect requests.
 */
export class Oid4vpDcApi1795800560000 implements MigrationInterface {
  name = 'Oid4vpDcApi1795800560000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "oid4vp_request" ADD "expected_origins" jsonb`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "oid4vp_request" DROP COLUMN "expected_origins"`);
  }
}
