import { Injectable, SetMetadata, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { type ContextualRequest } from './access.decorators.js';
import { routeClassOf } from './in-flight.js';
import { RateLimits } from './rate-limits.js';

const unlimitedKey = 'agent:unlimited';

/** Probes: an orchestrator asks often, from one address, and must never be told to wait. */
export const Unlimited = () => SetMetadata(unlimitedKey, true);

/**
 * After the token guard: a request with a verified caller counts against that caller, any other
 * (public routes: the token endpoint, the login form, status lists) against its client address.
 */
@Injectable()
export class RateLimitGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly limits: RateLimits,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(unlimitedKey, targets) === true) return true;
    const request = context.switchToHttp().getRequest<ContextualRequest>();
    const routeClass = routeClassOf(request.path) ?? 'api';
    if (request.user !== undefined)
      await this.limits.consume('caller', request.user.subject, routeClass);
    else await this.limits.consume('ip', clientAddress(request), routeClass);
    return true;
  }
}

/** Express's `ip`: the peer, or the X-Forwarded-For entry of a trusted proxy (configure-app.ts). */
export function clientAddress(request: { ip?: string; socket?: { remoteAddress?: string } }) {
  return request.ip ?? request.socket?.remoteAddress ?? 'unknown';
}
