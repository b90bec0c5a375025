import { type MigrationInterface, type QueryRunner } from 'typeorm';

/** Access tokens revoked at the embedded issuer's revocation endpoint (IssuerRevokedTokenEntity). */
export class IssuerRevokedTokens1795791000000 implements MigrationInterface {
  name = 'IssuerRevokedTokens1795791000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "issuer_revoked_token" (
        "jti" varchar(128) NOT NULL,
        "expires_at" timestamptz NOT NULL,
        PRIMARY KEY ("jti")
      )`);
    await queryRunner.query(
      `CREATE INDEX "issuer_revoked_token_expires_at_idx" ON "issuer_revoked_token" ("expires_at")`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "issuer_revoked_token"`);
  }
}
