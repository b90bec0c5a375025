import { tenantNotFound } from '../tenancy/tenant.errors.js';
import { type TenantsService } from '../tenants/tenants.service.js';
import { type WebhookSubscriptionEntity } from './webhook-subscription.entity.js';
import { type WebhookSubscriptionRepository } from './webhook-subscription.repository.js';
import { WebhooksService } from './webhooks.service.js';

/** Three subscriptions of acme, newest first, with their cursors' times. */
const rows = [3, 2, 1].map((n) => {
  const at = new Date(`2026-11-2${n}T10:00:00.000Z`);
  return {
    subscription: {
      id: `00000000-0000-4000-8000-00000000000${n}`,
      tenantId: 'acme',
      url: `https://8.8.8.8/${n}`,
      events: [],
      description: null,
      enabled: true,
      disabledReason: null,
      createdAt: at,
      updatedAt: at,
    } as unknown as WebhookSubscriptionEntity,
    cursorAt: `2026-11-2${n}T10:00:00.000000Z`,
  };
});

function setUp(tenants = ['acme']) {
  const asked: { offset: number; limit: number }[] = [];
  const repository: Pick<WebhookSubscriptionRepository, 'page' | 'count' | 'find'> = {
    page: (_owner, window) => {
      asked.push({ offset: window.offset, limit: window.limit });
      return Promise.resolve(rows.slice(window.offset, window.offset + window.limit));
    },
    count: () => Promise.resolve(rows.length),
    find: () => Promise.resolve(null),
  };
  const tenantsService = {
    requireTenant: (tenantId: string) =>
      tenants.includes(tenantId) ? Promise.resolve() : Promise.reject(tenantNotFound(tenantId)),
  } as unknown as TenantsService;
  const service = new WebhooksService(repository as WebhookSubscriptionRepository, tenantsService);
  return { service, asked };
}

describe('reading webhook subscriptions', () => {
  it('asks for one more than the page, and gives a cursor only when another page follows', async () => {
    const { service, asked } = setUp();
    const first = await service.list('acme', { page: 0, size: 2 });
    expect(asked).toEqual([{ offset: 0, limit: 3 }]);
    expect(first.content.map((view) => view.url)).toEqual([
      'https://8.8.8.8/3',
      'https://8.8.8.8/2',
    ]);
    expect(first).toMatchObject({ totalElements: 3, totalPages: 2 });
    expect(first.after).not.toBeNull();
    const last = await service.list('acme', { page: 1, size: 2 });
    expect(last.content.map((view) => view.url)).toEqual(['https://8.8.8.8/1']);
    expect(last.after).toBeNull();
  });

  it("answers the tenant's not-found for an unknown tenant, and the webhook's for an unknown id", async () => {
    const { service } = setUp();
    await expect(service.list('gone', {})).rejects.toMatchObject({
      code: 'TENANT_NOT_FOUND',
    });
    await expect(service.get(null, rows[0].subscription.id)).rejects.toMatchObject({
      code: 'WEBHOOK_NOT_FOUND',
      detail: `There is no all-tenant webhook subscription '${rows[0].subscription.id}'.`,
    });
  });
});
