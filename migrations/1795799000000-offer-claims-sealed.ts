import { type MigrationInterface, type QueryRunner } from 'typeorm';

/**
 * An offer's claims sealed at rest, like the claims a wallet discloses (docs/oid4vci.md, Offers). SQL
 * cannot seal (the master key is not the database's), so the claims of offers made before stay in
 * `claims_unsealed` until the offers' expiry job seals them, a batch at a time, on its first run after
 * the upgrade; nothing new is written there, and a later migration drops the column.
 */
export class OfferClaimsSealed1795799000000 implements MigrationInterface {
  name = 'OfferClaimsSealed1795799000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE "oid4vci_offer" RENAME COLUMN "claims" TO "claims_unsealed"`,
    );
    await queryRunner.query(
      `ALTER TABLE "oid4vci_offer" ADD "claims_sealed" bytea, ADD "claims_master_key_id" varchar(64)`,
    );
    // The sealing step's work: the offers whose claims are still in the clear.
    await queryRunner.query(
      `CREATE INDEX "oid4vci_offer_unsealed_claims_idx" ON "oid4vci_offer" ("id")
         WHERE "claims_unsealed" IS NOT NULL`,
    );
  }

  /**
   * SQL cannot open sealed claims either: the offers that hold them end as failed, so that the code
   * before never issues a credential without its claims.
   */
  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `UPDATE "oid4vci_offer" SET "status" = 'failed', "failure" = 'claims_sealed'
        WHERE "claims_sealed" IS NOT NULL AND "status" IN ('offered', 'accepted')`,
    );
    await queryRunner.query(`DROP INDEX "oid4vci_offer_unsealed_claims_idx"`);
    await queryRunner.query(
      `ALTER TABLE "oid4vci_offer" DROP COLUMN "claims_sealed", DROP COLUMN "claims_master_key_id"`,
    );
    await queryRunner.query(
      `ALTER TABLE "oid4vci_offer" RENAME COLUMN "claims_unsealed" TO "claims"`,
    );
  }
}
