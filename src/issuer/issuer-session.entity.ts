import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * A login session of the embedded issuer (Keycloak's user session). Kept in PostgreSQL so that every
 * instance of the service sees the same sessions.
 */
@Entity({ name: 'issuer_session' })
@Index('issuer_session_ended_at_idx', ['endedAt'])
@Index('issuer_session_last_refreshed_at_idx', ['lastRefreshedAt'])
@Index('issuer_session_started_at_idx', ['startedAt'])
export class IssuerSessionEntity {
  /** 24 base64url characters, as Keycloak 26.5+ makes them; the `sid` claim and `session_state`. */
  @PrimaryColumn({ type: 'varchar', length: 64 })
  id: string;

  @Column({ name: 'user_id', type: 'varchar', length: 64 })
  userId: string;

  @Column({ type: 'varchar', length: 255 })
  username: string;

  @Column({ name: 'client_id', type: 'varchar', length: 255 })
  clientId: string;

  @Column({ name: 'started_at', type: 'timestamptz' })
  startedAt: Date;

  @Column({ name: 'last_refreshed_at', type: 'timestamptz' })
  lastRefreshedAt: Date;

  @Column({ name: 'ended_at', type: 'timestamptz', nullable: true })
  endedAt: Date | null;
}
