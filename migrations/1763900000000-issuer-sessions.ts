import { type MigrationInterface, type QueryRunner } from 'typeorm';

export class IssuerSessions1763900000000 implements MigrationInterface {
  name = 'IssuerSessions1763900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "issuer_session" (
        "id" varchar(64) PRIMARY KEY,
        "user_id" varchar(64) NOT NULL,
        "username" varchar(255) NOT NULL,
        "client_id" varchar(255) NOT NULL,
        "started_at" timestamptz NOT NULL,
        "last_refreshed_at" timestamptz NOT NULL,
        "ended_at" timestamptz
      )`);
    await queryRunner.query(`
      CREATE TABLE "issuer_code" (
        "code_hash" varchar(64) PRIMARY KEY,
        "session_id" varchar(64) NOT NULL,
        "client_id" varchar(255) NOT NULL,
        "redirect_uri" text NOT NULL,
        "code_challenge" varchar(128),
        "code_challenge_method" varchar(8),
        "scope" text NOT NULL,
        "nonce" text,
        "expires_at" timestamptz NOT NULL,
        "used_at" timestamptz
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "issuer_code"`);
    await queryRunner.query(`DROP TABLE "issuer_session"`);
  }
}
