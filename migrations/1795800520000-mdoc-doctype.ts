import { type MigrationInterface, type QueryRunner } from 'typeorm';

/** The mdoc document type of an `mso_mdoc` credential configuration (OpenID4VCI 1.0 appendix A.2.2). */
export class MdocDoctype1795800520000 implements MigrationInterface {
  name = 'MdocDoctype1795800520000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "oid4vci_credential_configuration" ADD "doctype" varchar(256)`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "oid4vci_credential_configuration" DROP COLUMN "doctype"`);
  }
}
