import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * One `Idempotency-Key` of one caller, tenant and operation (docs/api.md, Retrying safely): the request
 * it was first used with, whether that request is still running, and its answer, sealed, once it
 * succeeded. Kept 24 hours.
 */
@Entity({ name: 'idempotency_key' })
@Index('idempotency_key_expires_at_idx', ['expiresAt'])
export class IdempotencyKeyEntity {
  /** SHA-256 (hex) of the caller, the tenant, the operation and the key: none of them in the clear. */
  @PrimaryColumn({ type: 'varchar', length: 64, primaryKeyConstraintName: 'idempotency_key_pkey' })
  id: string;

  /** SHA-256 (hex) of the request's path parameters, query and body. */
  @Column({ type: 'varchar', length: 64 })
  fingerprint: string;

  /** The attempt that holds the key: only its transaction may record the answer. */
  @Column({ type: 'uuid' })
  owner: string;

  @Column({ type: 'varchar', length: 16 })
  state: 'in-progress' | 'completed';

  /** Until then an in-progress key belongs to its attempt; after it, a retry may take it over. */
  @Column({ name: 'lease_until', type: 'timestamptz' })
  leaseUntil: Date;

  /** When the key is free again. */
  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;

  /** The HTTP status of the answer, once completed. */
  @Column({ type: 'smallint', nullable: true })
  status: number | null;

  /** The answer's body as JSON, sealed by the KeyVault with the row id as owner. */
  @Column({ name: 'answer_sealed', type: 'bytea', nullable: true })
  answerSealed: Buffer | null;

  @Column({ name: 'answer_master_key_id', type: 'varchar', length: 32, nullable: true })
  answerMasterKeyId: string | null;
}
