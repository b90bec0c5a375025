import { type Request } from 'express';

/** What handling a request learns about it, for log lines and controllers. */
export interface RequestContext {
  /** The request's id (X-Request-Id), set by request logging before anything else runs. */
  requestId?: string;
  /** The tenant selected by `x-tenant-id`, once the tenant guard accepted it. */
  tenantId?: string;
}

/** Who is calling, as far as a log line needs to know. */
export interface RequestUser {
  subject: string;
  username: string | undefined;
}

/** A request with what the guards found out: its context and, on a non-public route, its caller. */
export type ContextualRequest<User extends RequestUser = RequestUser> = Request & {
  agent?: RequestContext;
  user?: User;
};
