import { createParamDecorator, SetMetadata, type ExecutionContext } from '@nestjs/common';
import { type ContextualRequest as RequestWith } from '../common/request-context.js';
import { type Actor, type Caller } from './caller.js';

/**
 * Who may call a route. Every route declares exactly one of these; a route that declares none is
 * refused at run time by AccessPolicyGuard and fails the route inventory test.
 * - public: no token (discovery, health, the API explorer)
 * - admin: realm role agent-admin
 * - authenticated: any caller with a valid token and a role; the service narrows what it sees
 * - tenant: tenant-scoped, needs `x-tenant-id` naming a tenant the caller may act for
 */
export type AccessRule = 'public' | 'admin' | 'authenticated' | 'tenant';

export const accessRuleKey = 'agent:access-rule';

export const Public = () => SetMetadata(accessRuleKey, 'public' satisfies AccessRule);
export const AdminOnly = () => SetMetadata(accessRuleKey, 'admin' satisfies AccessRule);
export const Authenticated = () => SetMetadata(accessRuleKey, 'authenticated' satisfies AccessRule);

/**
 * Tenant-scoped: TenantGuard checks `x-tenant-id` against the caller; the handler's own read of the
 * tenant's rows answers 404 TENANT_NOT_FOUND when the tenant does not exist.
 */
export const TenantScoped = () => SetMetadata(accessRuleKey, 'tenant' satisfies AccessRule);

export type ContextualRequest = RequestWith<Caller>;

/** The authenticated caller (set by AccessTokenGuard) of a non-public route. */
export const CurrentCaller = createParamDecorator((_data: unknown, context: ExecutionContext) => {
  const caller = context.switchToHttp().getRequest<ContextualRequest>().user;
  if (caller === undefined) throw new Error('@CurrentCaller() used on a public route');
  return caller;
});

/** The caller of a change, with the request's id, for the audit line of that change. */
export const CurrentActor = createParamDecorator(
  (_data: unknown, context: ExecutionContext): Actor => {
    const request = context.switchToHttp().getRequest<ContextualRequest>();
    if (request.user === undefined) throw new Error('@CurrentActor() used on a public route');
    return { ...request.user, requestId: request.agent?.requestId };
  },
);

/** The tenant id that TenantGuard validated for a tenant-scoped route. */
export const CurrentTenant = createParamDecorator((_data: unknown, context: ExecutionContext) => {
  const request = context.switchToHttp().getRequest<ContextualRequest>();
  const tenantId = request.agent?.tenantId;
  if (tenantId === undefined) {
    throw new Error('@CurrentTenant() used on a route that is not @TenantScoped()');
  }
  return tenantId;
});
