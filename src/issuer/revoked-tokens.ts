import { Inject, Injectable } from '@nestjs/common';
import { CLOCK, type Clock } from '../common/clock.js';
import { IssuerRevokedTokenRepository } from './issuer-revoked-token.repository.js';

/** Keycloak keeps a revoked access token's id at least this long, even when it expires sooner. */
const minimumSeconds = 10;

/** Access tokens revoked before they expired: introspection and userinfo refuse them. */
@Injectable()
export class RevokedTokens {
  constructor(
    private readonly revoked: IssuerRevokedTokenRepository,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** Remembers the token's id until it expires (`exp`, seconds), as Keycloak's revocation does. */
  async revoke(jti: string, exp: number): Promise<void> {
    const expiresAt = new Date(Math.max(exp * 1000, this.clock() + minimumSeconds * 1000));
    await this.revoked.insertIfAbsent(jti, expiresAt);
  }

  async isRevoked(jti: unknown): Promise<boolean> {
    if (typeof jti !== 'string') return false;
    return this.revoked.exists(jti);
  }
}
