import { type DataSource, type EntityManager } from 'typeorm';
import { type AuditLog } from '../audit/audit-log.js';
import { type Actor } from '../auth/caller.js';
import { type DidService } from '../did/did.service.js';
import { type DomainEvent, type EventOutbox } from '../events/event-outbox.js';
import { type TenantPageAnchors } from './tenant-page-anchors.js';
import {
  type TenantFilter,
  type TenantRecord,
  type TenantRepository,
} from './tenant.repository.js';
import { type TenantPageQuery } from './tenant-sort-keys.js';
import { TenantsService } from './tenants.service.js';

const actor: Actor = {
  subject: 'admin',
  username: 'admin',
  clientId: undefined,
  roles: [],
  tenantIds: [],
  requestId: undefined,
};

function tenant(id: string): TenantRecord {
  const at = new Date('2026-01-01T00:00:00.000Z');
  return { id, label: `Tenant ${id}`, imageUrl: null, createdAt: at, updatedAt: at };
}

/** The tenant table as a list, and the DID table as a map, with the calls that reached them. */
function fakes(stored: TenantRecord[], dids: Map<string, string>) {
  const manager = {} as EntityManager;
  const calls = {
    didsOf: [] as (readonly string[])[],
    pages: [] as { filter: TenantFilter; query: TenantPageQuery }[],
    counts: [] as TenantFilter[],
    countAll: [] as number[],
    exists: [] as { id: string; lock: boolean; manager?: EntityManager }[],
    events: [] as DomainEvent[],
    forgotten: [] as string[],
  };
  const repository = {
    insert: () => Promise.reject(new Error('not used')),
    update: (id: string) => Promise.resolve(stored.find((row) => row.id === id)),
    delete: (id: string) => Promise.resolve(stored.some((row) => row.id === id)),
    exists: (id: string, lock: boolean, inside?: EntityManager) => {
      calls.exists.push({ id, lock, manager: inside });
      return Promise.resolve(stored.some((row) => row.id === id));
    },
    any: () => Promise.resolve(stored.length > 0),
    find: (id: string) => Promise.resolve(stored.find((row) => row.id === id)),
    page: (filter: TenantFilter, query: TenantPageQuery) => {
      calls.pages.push({ filter, query });
      return Promise.resolve(stored.slice(query.offset, query.offset + query.size));
    },
    count: (filter: TenantFilter) => {
      calls.counts.push(filter);
      return Promise.resolve(stored.length);
    },
    countAll: (exactLimit: number) => {
      calls.countAll.push(exactLimit);
      return Promise.resolve(stored.length);
    },
    anchorKeys: () => Promise.resolve([]),
  } satisfies Record<keyof TenantRepository, unknown>;
  const didService = {
    didsOf: (ids: readonly string[]) => {
      calls.didsOf.push(ids);
      return Promise.resolve(new Map([...dids].filter(([id]) => ids.includes(id))));
    },
    didInTransaction: (_manager: EntityManager, id: string) => Promise.resolve(dids.get(id)!),
    forgetKeysOf: (id: string) => {
      calls.forgotten.push(id);
    },
  };
  const dataSource = {
    transaction: <T>(work: (inside: EntityManager) => Promise<T>) => work(manager),
  };
  const outbox = {
    emit: (_manager: EntityManager, event: DomainEvent) => {
      calls.events.push(event);
      return Promise.resolve();
    },
  };
  const anchors = { seek: () => Promise.resolve(undefined), invalidate: () => undefined };
  const audit = { record: () => undefined };
  const service = new TenantsService(
    repository as unknown as TenantRepository,
    dataSource as unknown as DataSource,
    didService as unknown as DidService,
    outbox as unknown as EventOutbox,
    anchors as unknown as TenantPageAnchors,
    audit as unknown as AuditLog,
  );
  return { service, calls, manager };
}

describe('TenantsService without a database', () => {
  const stored = ['a', 'b', 'c', 'd', 'e'].map(tenant);
  const dids = new Map(stored.map((row) => [row.id, `did:key:z6Mk${row.id}`]));

  it('answers TENANT_NOT_FOUND for an unknown tenant, and for one whose DID is gone', async () => {
    const { service } = fakes(stored, new Map([...dids].filter(([id]) => id !== 'b')));
    await expect(service.get('nobody')).rejects.toMatchObject({ code: 'TENANT_NOT_FOUND' });
    await expect(service.get('b')).rejects.toMatchObject({ code: 'TENANT_NOT_FOUND' });
    expect(await service.get('a')).toMatchObject({ id: 'a', did: 'did:key:z6Mka' });
  });

  it("refuses a tenant outside the caller's claim before reading anything", async () => {
    const { service, calls } = fakes(stored, dids);
    await expect(service.get('a', { all: false, tenantIds: ['b'] })).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    expect(calls.didsOf).toEqual([]);
  });

  it("asks DidService for exactly the page's tenants, in one call", async () => {
    const { service, calls } = fakes(stored, dids);
    const page = await service.list({ page: 1, size: 2 });
    expect(calls.didsOf).toEqual([['c', 'd']]);
    expect(page.content.map((row) => [row.id, row.did])).toEqual([
      ['c', 'did:key:z6Mkc'],
      ['d', 'did:key:z6Mkd'],
    ]);
  });

  it('counts only when the page is full: the last page gives its total for free', async () => {
    const { service, calls } = fakes(stored, dids);
    expect((await service.list({ page: 2, size: 2 })).totalElements).toBe(5);
    expect(calls.countAll).toEqual([]);
    expect((await service.list({ page: 0, size: 2 })).totalElements).toBe(5);
    expect(calls.countAll).toEqual([10_000]);
    await service.list({ page: 0, size: 2, q: 'a' });
    expect(calls.counts).toEqual([{ visibleIds: undefined, q: 'a' }]);
  });

  it('lists only the visible tenants, and reads nothing for a caller who sees none', async () => {
    const { service, calls } = fakes(stored, dids);
    const none = await service.list({}, { all: false, tenantIds: [] });
    expect(none.totalElements).toBe(0);
    expect(calls.pages).toEqual([]);
    await service.list({ sort: 'label,asc' }, { all: false, tenantIds: ['a'] });
    expect(calls.pages[0]).toMatchObject({
      filter: { visibleIds: ['a'] },
      query: { field: 'label', descending: false, offset: 0, size: 20 },
    });
  });

  it('requires a tenant, locked inside the given transaction, or answers TENANT_NOT_FOUND', async () => {
    const { service, calls, manager } = fakes(stored, dids);
    await service.requireTenant('a', { manager, lock: true });
    await expect(service.requireTenant('nobody')).rejects.toMatchObject({
      code: 'TENANT_NOT_FOUND',
    });
    expect(calls.exists).toEqual([
      { id: 'a', lock: true, manager },
      { id: 'nobody', lock: false, manager: undefined },
    ]);
  });

  it('refuses an update without changes, and an unknown tenant without an event', async () => {
    const { service, calls } = fakes(stored, dids);
    await expect(service.update('a', {}, actor)).rejects.toMatchObject({
      code: 'NOTHING_TO_UPDATE',
    });
    await expect(service.update('nobody', { label: 'x' }, actor)).rejects.toMatchObject({
      code: 'TENANT_NOT_FOUND',
    });
    expect(calls.events).toEqual([]);
    await expect(service.delete('nobody', actor)).rejects.toMatchObject({
      code: 'TENANT_NOT_FOUND',
    });
  });

  it("drops the deleted tenant's keys kept unsealed, once the deletion is committed", async () => {
    const { service, calls } = fakes(stored, dids);
    await service.delete('a', actor);
    await expect(service.delete('nobody', actor)).rejects.toMatchObject({
      code: 'TENANT_NOT_FOUND',
    });
    expect(calls.forgotten).toEqual(['a']);
  });
});
