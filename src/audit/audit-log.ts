import { Injectable, Logger } from '@nestjs/common';
import { type Actor } from '../auth/caller.js';

/** What an audit line may add: names and ids, never a secret, a key or a credential's claims. */
export type AuditFacts = Record<string, string | number | boolean | string[] | null | undefined>;

/**
 * The one writer of audit lines: every change a caller makes (tenants, credentials, webhooks, trusted
 * issuers) is one line naming what, which tenant (`null`: all tenants), who and in which request.
 */
@Injectable()
export class AuditLog {
  private readonly logger = new Logger('Audit');

  record(action: string, actor: Actor, tenantId: string | null, facts: AuditFacts = {}): void {
    const name = actor.username ?? actor.subject;
    this.logger.log({
      ...facts,
      reqId: actor.requestId,
      msg: `audit ${action} ${tenantId ?? 'all tenants'} by ${name}`,
      audit: action,
      tenantId,
      actor: name,
      actorSubject: actor.subject,
      client: actor.clientId,
    });
  }
}
