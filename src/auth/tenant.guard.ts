import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { DomainException } from '../common/problem/domain.exception.js';
import { tenantIdPattern } from '../tenancy/tenant-id.js';
import { type ContextualRequest } from './access.decorators.js';
import { accessRuleOf } from './access-policy.guard.js';
import { mayActFor } from './caller.js';

export const tenantHeader = 'x-tenant-id';

/**
 * Third global guard: selects the tenant of a tenant-scoped route from `x-tenant-id` (api.md,
 * Authentication and authorization): missing or malformed 400; a tenant outside an agent-user's claim
 * 403, existing or not. Whether the tenant exists, the handler's own read tells (404).
 */
@Injectable()
export class TenantGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    if (accessRuleOf(this.reflector, context) !== 'tenant') return true;
    const request = context.switchToHttp().getRequest<ContextualRequest>();
    const raw = request.headers[tenantHeader];
    if (raw === undefined) {
      throw new DomainException(
        'TENANT_HEADER_MISSING',
        `This endpoint acts for one tenant: send its id in the ${tenantHeader} header.`,
        [{ field: tenantHeader, message: 'is required' }],
      );
    }
    if (typeof raw !== 'string' || !tenantIdPattern.test(raw)) {
      throw new DomainException(
        'TENANT_HEADER_INVALID',
        `The ${tenantHeader} header must be one tenant id (1-64 of A-Z a-z 0-9 _ . -, starting with a letter or digit).`,
        [{ field: tenantHeader, message: 'is not a valid tenant id' }],
      );
    }
    const caller = request.user;
    // An agent-user learns nothing about tenants outside its claim, not even whether they exist.
    if (caller === undefined || !mayActFor(caller, raw)) {
      throw new DomainException('FORBIDDEN', `The caller may not act for tenant '${raw}'.`);
    }
    request.agent = { ...request.agent, tenantId: raw };
    return true;
  }
}
