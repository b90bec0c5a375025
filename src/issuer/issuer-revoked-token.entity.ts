import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * An access token revoked at the revocation endpoint (RFC 7009), by its `jti`, until it would have
 * expired anyway (Keycloak's revoked-token store). In PostgreSQL so that every instance refuses it.
 */
@Entity({ name: 'issuer_revoked_token' })
@Index('issuer_revoked_token_expires_at_idx', ['expiresAt'])
export class IssuerRevokedTokenEntity {
  @PrimaryColumn({ type: 'varchar', length: 128 })
  jti: string;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;
}
