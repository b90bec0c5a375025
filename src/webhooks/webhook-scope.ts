import { applyDecorators, createParamDecorator } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { AdminOnly, CurrentTenant, TenantScoped } from '../auth/access.decorators.js';
import { ApiTenantSecurity, ApiTokenSecurity, tenantScopedProblems } from '../common/openapi.js';
import { type ErrorCode } from '../common/problem/error-codes.js';

/**
 * Whose subscriptions a set of webhook routes manages: one tenant's (`x-tenant-id`), or, for
 * agent-admin, the subscriptions to every tenant's events. Both sets have the same operations.
 */
export interface WebhookScope {
  /** The route prefix. */
  path: string;
  /** Tag and security of the scope's controllers. */
  controller: () => ClassDecorator;
  /** The access rule of every route. */
  access: () => MethodDecorator;
  /** The subscriptions' owner: the tenant, or null for all tenants. */
  owner: () => ParameterDecorator;
  /** What the access rule may answer. */
  problems: readonly ErrorCode[];
  /** Whose events, in summaries: "the tenant's" or "every tenant's". */
  whose: string;
  /** The operation id of the scope's variant of a tenant-scoped operation. */
  operationId: (tenantOperationId: string) => string;
}

/** Nothing to read: an all-tenant subscription has no tenant. */
const AllTenants = createParamDecorator((): null => null);

export const tenantWebhooks: WebhookScope = {
  path: 'ctrl/api/v1.0/webhooks',
  controller: () => applyDecorators(ApiTags('Webhooks'), ApiTenantSecurity()),
  access: TenantScoped,
  owner: () => CurrentTenant(),
  problems: tenantScopedProblems,
  whose: "the tenant's",
  operationId: (name) => name,
};

export const allTenantWebhooks: WebhookScope = {
  path: 'ctrl/api/v1.0/admin/webhooks',
  controller: () => applyDecorators(ApiTags('Webhooks for all tenants'), ApiTokenSecurity()),
  access: AdminOnly,
  owner: () => AllTenants(),
  problems: ['UNAUTHORIZED', 'FORBIDDEN'],
  whose: "every tenant's",
  operationId: (name) => name.replace('Webhook', 'AdminWebhook'),
};
