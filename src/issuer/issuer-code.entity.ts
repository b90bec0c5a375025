import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** An authorization code of the code flow: one use, 60 seconds (realm accessCodeLifespan). */
@Entity({ name: 'issuer_code' })
@Index('issuer_code_expires_at_idx', ['expiresAt'])
export class IssuerCodeEntity {
  /** SHA-256 of the code: a leaked table does not yield usable codes. */
  @PrimaryColumn({ name: 'code_hash', type: 'varchar', length: 64 })
  codeHash: string;

  @Column({ name: 'session_id', type: 'varchar', length: 64 })
  sessionId: string;

  @Column({ name: 'client_id', type: 'varchar', length: 255 })
  clientId: string;

  @Column({ name: 'redirect_uri', type: 'text' })
  redirectUri: string;

  @Column({ name: 'code_challenge', type: 'varchar', length: 128, nullable: true })
  codeChallenge: string | null;

  @Column({ name: 'code_challenge_method', type: 'varchar', length: 8, nullable: true })
  codeChallengeMethod: string | null;

  @Column({ type: 'text' })
  scope: string;

  @Column({ type: 'text', nullable: true })
  nonce: string | null;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;

  @Column({ name: 'used_at', type: 'timestamptz', nullable: true })
  usedAt: Date | null;
}
