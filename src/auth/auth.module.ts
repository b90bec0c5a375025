import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import { AccessPolicyGuard } from './access-policy.guard.js';
import { AccessTokenGuard } from './access-token.guard.js';
import { AccessTokenStrategy, VerifiedTokens } from './access-token.strategy.js';
import { TenantGuard } from './tenant.guard.js';

/**
 * Who may call what. The guards are global and run in this order, each seeing only what the previous
 * ones let through: token (401), role (403), tenant header (400/403). A route without an access rule
 * is closed (deny by default).
 */
@Module({
  imports: [PassportModule],
  providers: [
    { provide: VerifiedTokens, useValue: new VerifiedTokens() },
    AccessTokenStrategy,
    { provide: APP_GUARD, useClass: AccessTokenGuard },
    { provide: APP_GUARD, useClass: AccessPolicyGuard },
    { provide: APP_GUARD, useClass: TenantGuard },
  ],
})
export class AuthModule {}
