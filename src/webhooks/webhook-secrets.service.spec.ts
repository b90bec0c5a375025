import { jest } from '@jest/globals';
import { type TenantsService } from '../tenants/tenants.service.js';
import { type DataSource, type EntityManager } from 'typeorm';
import { type AuditLog } from '../audit/audit-log.js';
import { type Actor } from '../auth/caller.js';
import { type KeyVault } from '../secrets/key-vault.js';
import { WebhookSecretsService } from './webhook-secrets.service.js';
import {
  type RotatedSecret,
  type WebhookSubscriptionRepository,
} from './webhook-subscription.repository.js';
import { WebhooksService } from './webhooks.service.js';

const id = '6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f';
const actor = { subject: 'user-1', username: 'alice', requestId: 'req-1' } as Actor;

function setUp(known: string[]) {
  const rotations: RotatedSecret[] = [];
  const repository: Pick<WebhookSubscriptionRepository, 'rotateSecret'> = {
    rotateSecret: (_manager, _owner, key, secret) => {
      rotations.push(secret);
      return Promise.resolve(known.includes(key));
    },
  };
  const tenantsService = { requireTenant: () => Promise.resolve() } as unknown as TenantsService;
  const dataSource = {
    transaction: <T>(work: (manager: EntityManager) => Promise<T>) => work({} as EntityManager),
  } as unknown as DataSource;
  const subscriptions = repository as WebhookSubscriptionRepository;
  const record = jest.fn<AuditLog['record']>();
  const vault = { seal: () => Buffer.from('sealed'), masterKeyId: 'k2' } as unknown as KeyVault;
  const service = new WebhookSecretsService(
    dataSource,
    vault,
    () => now,
    { record } as unknown as AuditLog,
    new WebhooksService(subscriptions, tenantsService),
    subscriptions,
  );
  return { service, record, rotations };
}

/** The service's clock (common/clock.ts), fixed. */
const now = Date.parse('2026-06-01T12:00:00Z');

describe('webhook secret rotation', () => {
  it('keeps the previous secret signing for a day, sealed under the current master key, and audits the actor', async () => {
    const { service, record, rotations } = setUp([id]);
    const answer = await service.rotateSecret('acme', id, actor);
    expect(answer.secret).toMatch(/^whsec_/);
    expect(Date.parse(answer.previousSecretExpiresAt) - now).toBe(24 * 3600 * 1000);
    expect(rotations).toEqual([
      expect.objectContaining({
        masterKeyId: 'k2',
        previousUntil: new Date(answer.previousSecretExpiresAt),
      }),
    ]);
    expect(record).toHaveBeenCalledWith('webhook.rotate-secret', actor, 'acme', { webhookId: id });
  });

  it('answers the catalogued not-found for an unknown subscription, and audits nothing', async () => {
    const { service, record } = setUp([]);
    await expect(service.rotateSecret('acme', id, actor)).rejects.toMatchObject({
      code: 'WEBHOOK_NOT_FOUND',
    });
    expect(record).not.toHaveBeenCalled();
  });
});
