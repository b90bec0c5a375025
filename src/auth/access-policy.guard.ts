import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { DomainException } from '../common/problem/domain.exception.js';
import { accessRuleKey, type AccessRule } from './access.decorators.js';

/** Deny by default: a route that declares no access rule is never served. */
@Injectable()
export class AccessPolicyGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    const rule = accessRuleOf(this.reflector, context);
    if (rule === undefined) {
      throw new DomainException('FORBIDDEN', 'This route declares no access rule and is closed.');
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
