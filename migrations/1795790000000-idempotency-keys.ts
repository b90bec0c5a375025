import { type MigrationInterface, type QueryRunner } from 'typeorm';

/** Idempotency keys and the answers they replay, for 24 hours (IdempotencyKeyEntity). */
export class IdempotencyKeys1795790000000 implements MigrationInterface {
  name = 'IdempotencyKeys1795790000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE "idempotency_key" (
        "id" varchar(64) NOT NULL,
        "fingerprint" varchar(64) NOT NULL,
        "owner" uuid NOT NULL,
        "state" varchar(16) NOT NULL,
        "lease_until" timestamptz NOT NULL,
        "expires_at" timestamptz NOT NULL,
        "status" smallint,
        "answer_sealed" bytea,
        "answer_master_key_id" varchar(32),
        CONSTRAINT "idempotency_key_pkey" PRIMARY KEY ("id")
      )`);
    await queryRunner.query(
      `CREATE INDEX "idempotency_key_expires_at_idx" ON "idempotency_key" ("expires_at")`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "idempotency_key"`);
  }
}
