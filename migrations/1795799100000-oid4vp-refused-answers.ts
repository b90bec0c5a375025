import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * How many answers a presentation request refused as not bound to it: at a bound the request fails
 * (docs/oid4vp.md), so that no stranger who sees its link ends it with one answer.
 */
export class Oid4vpRefusedAnswers1795799100000 implements MigrationInterface {
  name = 'Oid4vpRefusedAnswers1795799100000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "oid4vp_request" ADD "refused_answers" integer NOT NULL DEFAULT 0`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "oid4vp_request" DROP COLUMN "refused_answers"`);
  }
}
