import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

export const spentProofKinds = ['dpop', 'client-attestation-pop'] as const;
export type SpentProofKind = (typeof spentProofKinds)[number];

/**
 * A proof's `jti` already used (RFC 9449 §11.1; attestation PoP), by hash, kept while a replay would
 * still pass the `iat` window: every instance reads the same rows, so a replay is refused at any of
 * them. No foreign key to the tenant: a proof's tenant is not checked before its jti is spent, and the
 * rows expire within minutes anyway.
 */
@Entity({ name: 'spent_proof_jti' })
@Index('spent_proof_jti_expiry_idx', ['expiresAt'])
export class SpentProofEntity {
  @PrimaryColumn({ type: 'varchar', length: 32, primaryKeyConstraintName: 'spent_proof_jti_pkey' })
  kind: SpentProofKind;

  @PrimaryColumn({
    name: 'tenant_id',
    type: 'varchar',
    length: 64,
    primaryKeyConstraintName: 'spent_proof_jti_pkey',
  })
  tenantId: string;

  /** SHA-256 of the key's thumbprint and the jti: one wallet cannot spend another's ids. */
  @PrimaryColumn({
    name: 'jti_hash',
    type: 'bytea',
    primaryKeyConstraintName: 'spent_proof_jti_pkey',
  })
  jtiHash: Buffer;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;
}
