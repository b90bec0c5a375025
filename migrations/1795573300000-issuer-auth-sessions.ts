import { type MigrationInterface, type QueryRunner } from 'typeorm';

/** Pending authorization requests of the embedded issuer's login page (IssuerAuthSessionEntity). */
export class IssuerAuthSessions1795573300000 implements MigrationInterface {
  name = 'IssuerAuthSessions1795573300000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "issuer_auth_session" (
        "root_hash" varchar(64) NOT NULL,
        "tab_id" varchar(16) NOT NULL,
        "client_id" varchar(255) NOT NULL,
        "request" jsonb NOT NULL,
        "session_code_hash" varchar(64) NOT NULL,
        "expires_at" timestamptz NOT NULL,
        PRIMARY KEY ("root_hash", "tab_id")
      )`);
    await queryRunner.query(
      `CREATE INDEX "issuer_auth_session_expires_at_idx" ON "issuer_auth_session" ("expires_at")`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "issuer_auth_session"`);
  }
}
