export const adminRole = 'agent-admin';
export const userRole = 'agent-user';

/** Who is calling, as the validated access token says. */
export interface Caller {
  subject: string;
  username: string | undefined;
  /** The client the token was issued to (`azp`). */
  clientId: string | undefined;
  roles: readonly string[];
  /** The `tenant_ids` claim: the tenants an agent-user may act for. */
  tenantIds: readonly string[];
}

/** Who makes a change, and in which request: what an audit line names. */
export interface Actor extends Caller {
  requestId: string | undefined;
}

export function isAdmin(caller: Caller): boolean {
  return caller.roles.includes(adminRole);
}

export function hasAgentRole(caller: Caller): boolean {
  return isAdmin(caller) || caller.roles.includes(userRole);
}

/** Which tenants a caller may see: all of them, or only those listed. */
export type TenantVisibility = { all: true } | { all: false; tenantIds: readonly string[] };

/** An admin sees every tenant; an agent-user only those in its claim. */
export function visibilityOf(caller: Caller): TenantVisibility {
  return isAdmin(caller) ? { all: true } : { all: false, tenantIds: caller.tenantIds };
}

export function mayActFor(caller: Caller, tenantId: string): boolean {
  return (
    isAdmin(caller) || (caller.roles.includes(userRole) && caller.tenantIds.includes(tenantId))
  );
}
