import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * Failed password logins of one realm user (Keycloak's LoginFailure), in PostgreSQL so that every
 * instance counts the same failures. A successful login deletes the row.
 */
@Entity({ name: 'issuer_login_failure' })
@Index('issuer_login_failure_last_failure_idx', ['lastFailure'])
export class IssuerLoginFailureEntity {
  /** The realm user's id (the `sub` of their tokens). */
  @PrimaryColumn({ name: 'user_id', type: 'varchar', length: 64 })
  userId: string;

  /** For operators, who unlock by username. */
  @Column({ type: 'varchar', length: 255 })
  username: string;

  @Column({ name: 'num_failures', type: 'integer' })
  numFailures: number;

  @Column({ name: 'num_temporary_lockouts', type: 'integer' })
  numTemporaryLockouts: number;

  @Column({ name: 'last_failure', type: 'timestamptz' })
  lastFailure: Date;

  @Column({ name: 'last_ip_failure', type: 'varchar', length: 64 })
  lastIpFailure: string;

  /** Logins are refused until then (a temporary lockout). */
  @Column({ name: 'failed_login_not_before', type: 'timestamptz', nullable: true })
  failedLoginNotBefore: Date | null;

  /** Set by permanentLockout; Keycloak disables the user instead, but these users live in the realm file. */
  @Column({ name: 'permanently_locked_at', type: 'timestamptz', nullable: true })
  permanentlyLockedAt: Date | null;
}
