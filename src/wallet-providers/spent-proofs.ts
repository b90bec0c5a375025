import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { createHash } from 'node:crypto';
import { type DataSource } from 'typeorm';
import { CLOCK, type Clock } from '../common/clock.js';
import { issuedAtWindow } from '../jose/issued-at.js';
import { type SpentProofKind } from './spent-proof.entity.js';

export interface ProofUse {
  tenantId: string;
  kind: SpentProofKind;
  /** The RFC 7638 thumbprint of the key that signed the proof. */
  keyThumbprint: string;
  jti: string;
  /** The proof's `iat`, seconds: it passes the window until `iat` + the window's past bound. */
  issuedAt: number;
}

/*
 * One insert: a new id is kept, an id still within its window answers nothing (spent), and a row whose
 * window has passed (not purged yet) is taken over, as no proof carrying it could pass anyway.
 */
const spendSql = `INSERT INTO spent_proof_jti AS spent (kind, tenant_id, jti_hash, expires_at)
  VALUES ($1, $2, $3, $4)
  ON CONFLICT (kind, tenant_id, jti_hash) DO UPDATE SET expires_at = EXCLUDED.expires_at
    WHERE spent.expires_at <= $5
  RETURNING 1`;

/**
 * One-time proof ids shared by every instance (docs/wallet-providers.md): DPoP proofs (RFC 9449 §11.1)
 * and client attestation PoPs, each accepted once within its `iat` window, by PostgreSQL's unique key.
 */
@Injectable()
export class SpentProofs {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** True when the id was not used before (now it is); false for a replay. */
  async spend(use: ProofUse): Promise<boolean> {
    const now = this.clock();
    // Kept while a proof with this iat still passes the window; at least a minute past now.
    const until = Math.max(
      (use.issuedAt + issuedAtWindow.pastSeconds + 1) * 1000,
      now + issuedAtWindow.futureSeconds * 1000,
    );
    const hash = createHash('sha256').update(`${use.keyThumbprint}.${use.jti}`).digest();
    const rows = await this.dataSource.query<unknown[]>(spendSql, [
      use.kind,
      use.tenantId,
      hash,
      new Date(until),
      new Date(now),
    ]);
    return rows.length > 0;
  }

  /** Deletes the expired ids in batches; answers how many. */
  async purgeExpired(batchSize = 1000): Promise<number> {
    const now = new Date(this.clock());
    let total = 0;
    for (;;) {
      const [, deleted] = await this.dataSource.query<[unknown, number]>(
        `DELETE FROM spent_proof_jti WHERE ctid IN (
           SELECT ctid FROM spent_proof_jti WHERE expires_at <= $1
           LIMIT $2 FOR UPDATE SKIP LOCKED)`,
        [now, batchSize],
      );
      total += deleted;
      if (deleted < batchSize) return total;
    }
  }
}
