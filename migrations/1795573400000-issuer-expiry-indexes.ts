import { type MigrationInterface, type QueryRunner } from 'typeorm';

/** Indexes for the purge of expired issuer sessions and codes (IssuerPurge). */
export class IssuerExpiryIndexes1795573400000 implements MigrationInterface {
  name = 'IssuerExpiryIndexes1795573400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `CREATE INDEX "issuer_code_expires_at_idx" ON "issuer_code" ("expires_at")`,
    );
    await queryRunner.query(
      `CREATE INDEX "issuer_session_ended_at_idx" ON "issuer_session" ("ended_at")`,
    );
    await queryRunner.query(
      `CREATE INDEX "issuer_session_last_refreshed_at_idx" ON "issuer_session" ("last_refreshed_at")`,
    );
    await queryRunner.query(
      `CREATE INDEX "issuer_session_started_at_idx" ON "issuer_session" ("started_at")`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "issuer_session_started_at_idx"`);
    await queryRunner.query(`DROP INDEX "issuer_session_last_refreshed_at_idx"`);
    await queryRunner.query(`DROP INDEX "issuer_session_ended_at_idx"`);
    await queryRunner.query(`DROP INDEX "issuer_code_expires_at_idx"`);
  }
}
