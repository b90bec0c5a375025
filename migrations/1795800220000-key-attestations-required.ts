import { type MigrationInterface, type QueryRunner } from 'typeorm';

/** What key attestations a credential configuration requires (OpenID4VCI 1.0 Appendix D; null: none). */
export class KeyAttestationsRequired1795800220000 implements MigrationInterface {
  name = 'KeyAttestationsRequired1795800220000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "oid4vci_credential_configuration" ADD "key_attestations_required" jsonb`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "oid4vci_credential_configuration" DROP COLUMN "key_attestations_required"`,
    );
  }
}
