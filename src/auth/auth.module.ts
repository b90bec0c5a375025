import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import { ApiRequestGuard } from '../common/api-request.guard.js';
import { CLOCK, type Clock } from '../common/clock.js';
import { AccessPolicyGuard } from './access-policy.guard.js';
import { AccessTokenGuard } from './access-token.guard.js';
import { AccessTokenStrategy, VerifiedTokens } from './access-token.strategy.js';
import { RateLimitGuard } from './rate-limit.guard.js';
import { RateLimits } from './rate-limits.js';
import { TenantGuard } from './tenant.guard.js';

/**
 * Who may call what, and how often. The guards are global and run in this order, each seeing only
 * what the previous ones let through: token (401; a refused token counts against its address), rate
 * limit (429), role (403), tenant header (400/403), and last the API request's query and JSON body,
 * read only for a caller let in. A route without an access rule is closed (deny by default). A new
 * global guard goes before ApiRequestGuard: Nest runs them in the order they are listed.
 */
@Module({
  imports: [PassportModule],
  providers: [
    {
      provide: VerifiedTokens,
      useFactory: (clock: Clock) => new VerifiedTokens({ now: clock }),
      inject: [CLOCK],
    },
    AccessTokenStrategy,
    RateLimits,
    { provide: APP_GUARD, useClass: AccessTokenGuard },
    { provide: APP_GUARD, useClass: RateLimitGuard },
    { provide: APP_GUARD, useClass: AccessPolicyGuard },
    { provide: APP_GUARD, useClass: TenantGuard },
    { provide: APP_GUARD, useClass: ApiRequestGuard },
  ],
})
export class AuthModule {}
