import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * An authorization request waiting for its login form (Keycloak's authentication session): one row per
 * login page (tab) of a browser, whose AUTH_SESSION_ID cookie names the root session.
 */
@Entity({ name: 'issuer_auth_session' })
@Index('issuer_auth_session_expires_at_idx', ['expiresAt'])
export class IssuerAuthSessionEntity {
  /** SHA-256 of the AUTH_SESSION_ID cookie: a leaked table does not yield usable cookies. */
  @PrimaryColumn({ name: 'root_hash', type: 'varchar', length: 64 })
  rootHash: string;

  @PrimaryColumn({ name: 'tab_id', type: 'varchar', length: 16 })
  tabId: string;

  @Column({ name: 'client_id', type: 'varchar', length: 255 })
  clientId: string;

  /** The parameters of the authorization request, checked again when the form is posted. */
  @Column({ type: 'jsonb' })
  request: Record<string, string>;

  /** SHA-256 of the one-time session_code the login page posts back. */
  @Column({ name: 'session_code_hash', type: 'varchar', length: 64 })
  sessionCodeHash: string;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;
}
