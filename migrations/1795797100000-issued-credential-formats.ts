import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * An issued credential's format (`ldp_vc` or `dc+sd-jwt`, OpenID4VCI 1.0 Appendix A) and, for one issued
 * through OpenID4VCI, the offer and credential configuration it came from (docs/oid4vci.md).
 */
export class IssuedCredentialFormats1795797100000 implements MigrationInterface {
  name = 'IssuedCredentialFormats1795797100000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE "issued_credential"
        ADD "format" varchar(16) NOT NULL DEFAULT 'ldp_vc',
        ADD "offer_id" uuid,
        ADD "configuration_id" varchar(64)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE "issued_credential"
        DROP COLUMN "configuration_id",
        DROP COLUMN "offer_id",
        DROP COLUMN "format"`);
  }
}
