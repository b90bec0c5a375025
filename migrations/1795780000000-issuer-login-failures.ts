import { type MigrationInterface, type QueryRunner } from 'typeorm';

/** The embedded issuer's failed password logins per user, for brute force detection (IssuerLoginFailureEntity). */
export class IssuerLoginFailures1795780000000 implements MigrationInterface {
  name = 'IssuerLoginFailures1795780000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "issuer_login_failure" (
        "user_id" varchar(64) NOT NULL,
        "username" varchar(255) NOT NULL,
        "num_failures" integer NOT NULL,
        "num_temporary_lockouts" integer NOT NULL,
        "last_failure" timestamptz NOT NULL,
        "last_ip_failure" varchar(64) NOT NULL,
        "failed_login_not_before" timestamptz,
        "permanently_locked_at" timestamptz,
        PRIMARY KEY ("user_id")
      )`);
    await queryRunner.query(
      `CREATE INDEX "issuer_login_failure_last_failure_idx" ON "issuer_login_failure" ("last_failure")`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "issuer_login_failure"`);
  }
}
