import { isUUID } from 'class-validator';
import { Injectable } from '@nestjs/common';
import {
  cursorPage,
  cursorWindow,
  uuidPattern,
  type CursorPageQuery,
} from '../common/cursor-page.js';
import { TenantsService } from '../tenants/tenants.service.js';
import { type WebhookPageDto } from './dto/webhook.dto.js';
import { type WebhookSubscriptionEntity } from './webhook-subscription.entity.js';
import { WebhookSubscriptionRepository } from './webhook-subscription.repository.js';
import { viewOf, webhookNotFound, type SubscriptionView } from './webhook-subscription.view.js';

/**
 * Subscriptions of a tenant, or to every tenant's events when the owner is null (agent-admin): reading
 * them, and the owner's rules every operation on them follows.
 */
@Injectable()
export class WebhooksService {
  constructor(
    private readonly subscriptions: WebhookSubscriptionRepository,
    private readonly tenants: TenantsService,
  ) {}

  /** The tenant rules of every tenant-scoped route: an unknown tenant is 404 here too. */
  async requireTenant(tenantId: string | null): Promise<void> {
    if (tenantId !== null) await this.tenants.requireTenant(tenantId);
  }

  /** Newest first, by page number or after a cursor (docs/api.md, Pages). */
  async list(owner: string | null, query: CursorPageQuery): Promise<WebhookPageDto> {
    await this.requireTenant(owner);
    const window = cursorWindow(query, uuidPattern);
    const { after } = window;
    const [rows, total] = await Promise.all([
      // One row more than the page: whether another follows it.
      this.subscriptions.page(owner, { offset: window.offset, limit: window.size + 1, after }),
      after === undefined ? this.subscriptions.count(owner) : undefined,
    ]);
    const content = rows.slice(0, window.size);
    const last = content.at(-1);
    return cursorPage(
      content.map((row) => viewOf(row.subscription)),
      window,
      total,
      last && { at: last.cursorAt, id: last.subscription.id },
      rows.length > window.size,
    );
  }

  async get(owner: string | null, id: string): Promise<SubscriptionView> {
    return viewOf(await this.find(owner, id));
  }

  /** The owner's subscription, or 404 (also for another tenant's, or a tenant's to the admin path). */
  async find(owner: string | null, id: string): Promise<WebhookSubscriptionEntity> {
    const entity = await this.subscriptions.find(owner, await this.idOf(owner, id));
    if (entity === null) throw webhookNotFound(owner, id);
    return entity;
  }

  /** A subscription id is a UUID; anything else names none (and must not reach a uuid column). */
  async idOf(owner: string | null, id: string): Promise<string> {
    await this.requireTenant(owner);
    if (!isUUID(id)) {
      throw webhookNotFound(owner, id);
    }
    return id.toLowerCase();
  }
}
