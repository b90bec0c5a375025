import { jest } from '@jest/globals';
import { tenantNotFound } from '../tenancy/tenant.errors.js';
import { type TenantsService } from '../tenants/tenants.service.js';
import { type DataSource, type EntityManager } from 'typeorm';
import { type AuditLog } from '../audit/audit-log.js';
import { type Actor } from '../auth/caller.js';
import { type Settings } from '../config/settings.js';
import { type KeyVault } from '../secrets/key-vault.js';
import { WebhookChangesService } from './webhook-changes.service.js';
import { type WebhookSubscriptionEntity } from './webhook-subscription.entity.js';
import {
  type SubscriptionUpdate,
  type WebhookSubscriptionRepository,
} from './webhook-subscription.repository.js';
import { WebhooksService } from './webhooks.service.js';

const id = '6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f';
const actor: Actor = {
  subject: 'user-1',
  username: 'alice',
  clientId: undefined,
  roles: ['agent-admin'],
  tenantIds: [],
  requestId: 'req-1',
};

/** A subscription row as the repository answers it. */
function subscription(changes: Partial<WebhookSubscriptionEntity> = {}): WebhookSubscriptionEntity {
  const at = new Date('2026-11-25T10:00:00.000Z');
  return {
    id,
    tenantId: 'acme',
    url: 'https://8.8.8.8/hook',
    events: [],
    description: null,
    enabled: true,
    disabledReason: null,
    createdAt: at,
    updatedAt: at,
    ...changes,
  } as WebhookSubscriptionEntity;
}

/** The subscriptions table as a map, and the tenants that exist. */
function setUp(rows: WebhookSubscriptionEntity[] = [subscription()], tenants = ['acme']) {
  const table = new Map(rows.map((row) => [row.id, row]));
  const updates: SubscriptionUpdate[] = [];
  // The repository's part the services use, over the map.
  const repository: Pick<
    WebhookSubscriptionRepository,
    'find' | 'update' | 'delete' | 'insert' | 'page' | 'count'
  > = {
    find: (owner, key) => {
      const row = table.get(key);
      return Promise.resolve(row !== undefined && row.tenantId === owner ? row : null);
    },
    update: (owner, key, update) => {
      updates.push(update);
      const row = table.get(key);
      if (row === undefined || row.tenantId !== owner) return Promise.resolve(undefined);
      return Promise.resolve({
        ...row,
        url: update.url ?? row.url,
        events: update.events ?? row.events,
      });
    },
    delete: (owner, key) =>
      Promise.resolve(table.get(key)?.tenantId === owner && table.delete(key)),
    insert: (_manager, row) => Promise.resolve(subscription(row)),
    page: () => Promise.reject(new Error('not used')),
    count: () => Promise.resolve(table.size),
  };
  const subscriptions = repository as WebhookSubscriptionRepository;
  // The tenant rule is the tenants feature's.
  const tenantsService = {
    requireTenant: (tenantId: string) =>
      tenants.includes(tenantId) ? Promise.resolve() : Promise.reject(tenantNotFound(tenantId)),
  } as unknown as TenantsService;
  const dataSource = {
    transaction: <T>(work: (manager: EntityManager) => Promise<T>) => work({} as EntityManager),
  } as unknown as DataSource;
  const record = jest.fn<AuditLog['record']>();
  const vault = { seal: () => Buffer.from('sealed'), masterKeyId: 'k1' } as unknown as KeyVault;
  const settings = { webhookAllowPrivateTargets: false } as Settings;
  const service = new WebhookChangesService(
    dataSource,
    settings,
    vault,
    { record } as unknown as AuditLog,
    new WebhooksService(subscriptions, tenantsService),
    subscriptions,
  );
  return { service, record, updates, table, repository };
}

describe('webhook subscription changes', () => {
  it('answers the catalogued not-found for an update of an unknown subscription, and audits nothing', async () => {
    const { service, record, updates } = setUp([]);
    await expect(service.update('acme', id, { enabled: false }, actor)).rejects.toMatchObject({
      code: 'WEBHOOK_NOT_FOUND',
      detail: `The tenant has no webhook subscription '${id}'.`,
    });
    expect(updates).toEqual([]);
    expect(record).not.toHaveBeenCalled();
  });

  it("never changes another tenant's subscription: it is not found to them", async () => {
    const { service } = setUp([subscription()], ['acme', 'globex']);
    await expect(service.update('globex', id, { enabled: false }, actor)).rejects.toMatchObject({
      code: 'WEBHOOK_NOT_FOUND',
    });
  });

  it('refuses an update that changes nothing, before writing anything', async () => {
    const { service, updates } = setUp();
    await expect(service.update('acme', id, {}, actor)).rejects.toMatchObject({
      code: 'NOTHING_TO_UPDATE',
    });
    expect(updates).toEqual([]);
  });

  it('is not found when the subscription is deleted between the check and the change', async () => {
    const { service, repository } = setUp();
    repository.update = () => Promise.resolve(undefined);
    await expect(service.update('acme', id, { description: 'x' }, actor)).rejects.toMatchObject({
      code: 'WEBHOOK_NOT_FOUND',
    });
  });

  it('changes only what is given, events once each, and audits the actor, the fields and the origin only', async () => {
    const { service, record, updates } = setUp();
    const view = await service.update(
      'acme',
      id.toUpperCase(),
      { url: 'https://8.8.4.4/secret-path', events: ['tenant.created', 'tenant.created'] },
      actor,
    );
    expect(updates).toEqual([
      {
        url: 'https://8.8.4.4/secret-path',
        events: ['tenant.created'],
        description: null,
        enabled: null,
      },
    ]);
    expect(view).toMatchObject({ url: 'https://8.8.4.4/secret-path', events: ['tenant.created'] });
    expect(record).toHaveBeenCalledWith('webhook.update', actor, 'acme', {
      webhookId: id.toUpperCase(),
      fields: ['url', 'events'],
      urlOrigin: 'https://8.8.4.4',
    });
  });

  it('refuses a changed URL to a private address, as for a new subscription', async () => {
    const { service, updates } = setUp();
    await expect(
      service.update('acme', id, { url: 'https://10.0.0.1/hook' }, actor),
    ).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(updates).toEqual([]);
  });

  it("is the tenant's not-found for any operation under an unknown tenant", async () => {
    const { service } = setUp([], []);
    await expect(service.delete('gone', id, actor)).rejects.toMatchObject({
      code: 'TENANT_NOT_FOUND',
    });
  });

  it('deletes with the actor in the audit log; an id that is not a UUID names no subscription', async () => {
    const { service, record, table } = setUp();
    await expect(service.delete('acme', 'not-a-uuid', actor)).rejects.toMatchObject({
      code: 'WEBHOOK_NOT_FOUND',
    });
    await service.delete('acme', id, actor);
    expect(table.size).toBe(0);
    expect(record).toHaveBeenCalledWith('webhook.delete', actor, 'acme', { webhookId: id });
    await expect(service.delete('acme', id, actor)).rejects.toMatchObject({
      code: 'WEBHOOK_NOT_FOUND',
    });
  });

  it('creates an all-tenant subscription with its secret shown once, and audits the origin', async () => {
    const { service, record } = setUp();
    const created = await service.create(null, { url: 'https://8.8.8.8/in' }, actor);
    expect(created.secret).toMatch(/^whsec_/);
    expect(created).toMatchObject({ tenantId: null, url: 'https://8.8.8.8/in', events: [] });
    expect(record).toHaveBeenCalledWith('webhook.create', actor, null, {
      webhookId: created.id,
      urlOrigin: 'https://8.8.8.8',
    });
  });
});
