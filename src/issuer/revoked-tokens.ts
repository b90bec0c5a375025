import { Inject, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import { CLOCK, type Clock } from '../common/clock.js';
import { IssuerRevokedTokenEntity } from './issuer-revoked-token.entity.js';

/** Keycloak keeps a revoked access token's id at least this long, even when it expires sooner. */
const minimumSeconds = 10;

/** Access tokens revoked before they expired: introspection and userinfo refuse them. */
@Injectable()
export class RevokedTokens {
  constructor(
    @InjectRepository(IssuerRevokedTokenEntity)
    private readonly revoked: Repository<IssuerRevokedTokenEntity>,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** Remembers the token's id until it expires (`exp`, seconds), as Keycloak's revocation does. */
  async revoke(jti: string, exp: number): Promise<void> {
    const expiresAt = new Date(Math.max(exp * 1000, this.clock() + minimumSeconds * 1000));
    await this.revoked
      .createQueryBuilder()
      .insert()
      .values({ jti, expiresAt })
      .orIgnore()
      .execute();
  }

  async isRevoked(jti: unknown): Promise<boolean> {
    if (typeof jti !== 'string') return false;
    return this.revoked.existsBy({ jti });
  }
}
