import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { DomainException } from '../common/problem/domain.exception.js';
import { accessRuleKey, type AccessRule, type ContextualRequest } from './access.decorators.js';
import { hasAgentRole, isAdmin } from './caller.js';

/**
 * Second global guard: the realm roles a route's access rule needs (api.md, Authentication and
 * authorization). Deny by default: a route that declares no access rule is never served.
 */
@Injectable()
export class AccessPolicyGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const rule = accessRuleOf(this.reflector, context);
    if (rule === undefined) {
      throw new DomainException('FORBIDDEN', 'This route declares no access rule and is closed.');
    }
    if (rule === 'public') return true;
    const caller = context.switchToHttp().getRequest<ContextualRequest>().user;
    if (caller === undefined)
      throw new DomainException('UNAUTHORIZED', 'A valid bearer access token is required.');
    if (rule === 'admin' ? !isAdmin(caller) : !hasAgentRole(caller)) {
      throw new DomainException(
        'FORBIDDEN',
        rule === 'admin'
          ? 'Only callers with the realm role agent-admin may manage tenants.'
          : 'The caller has neither the realm role agent-admin nor agent-user.',
        undefined,
        { 'WWW-Authenticate': 'Bearer realm="agent-cloud", error="insufficient_scope"' },
      );
    }
    return true;
  }
}

export function accessRuleOf(
  reflector: Reflector,
  context: ExecutionContext,
): AccessRule | undefined {
  return reflector.getAllAndOverride<AccessRule | undefined>(accessRuleKey, [
    context.getHandler(),
    context.getClass(),
  ]);
}
