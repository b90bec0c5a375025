import pg from 'pg';
import { DomainException } from '../../common/problem/domain.exception.js';
import { testClock } from '../../../test/support/service-fakes.js';
import { secretHash } from '../offers/offer-secrets.js';
import { type NonceRepository } from './nonce.repository.js';
import { nonceLifetimeSeconds, NoncesService } from './nonces.service.js';

/** A refusal as pg raises it, with its SQLSTATE and constraint. */
function databaseError(code: string, constraint: string): pg.DatabaseError {
  return Object.assign(new pg.DatabaseError('refused', 0, 'error'), { code, constraint });
}

/** The service over a repository that keeps its nonces in a map by hash, as the table does. */
function newTestService() {
  const time = testClock();
  const fakes = {
    stored: new Map<string, { tenantId: string; expiresAt: Date }>(),
    refusal: undefined as Error | undefined,
    spends: [] as { tenantId: string; hash: Buffer; now: Date }[],
    batches: [] as number[],
  };
  const repository = {
    insert: (tenantId: string, hash: Buffer, expiresAt: Date) => {
      if (fakes.refusal !== undefined) return Promise.reject(fakes.refusal);
      fakes.stored.set(hash.toString('hex'), { tenantId, expiresAt });
      return Promise.resolve();
    },
    spend: (_manager: unknown, tenantId: string, hash: Buffer, now: Date) => {
      fakes.spends.push({ tenantId, hash, now });
      const row = fakes.stored.get(hash.toString('hex'));
      const spendable = row !== undefined && row.tenantId === tenantId && row.expiresAt > now;
      if (spendable) fakes.stored.delete(hash.toString('hex'));
      return Promise.resolve(spendable);
    },
    deleteExpiredBatch: (_now: Date, limit: number) =>
      Promise.resolve(Math.min(limit, fakes.batches.shift() ?? 0)),
  } as unknown as NonceRepository;
  const service = new NoncesService(repository, time.clock);
  return { service, time, ...fakes, fakes };
}

describe(NoncesService.name, () => {
  const manager = {} as never;

  it('stores a nonce by its hash only, good for its lifetime from the clock', async () => {
    const { service, stored } = newTestService();
    const nonce = await service.issue('acme');
    expect(nonce).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect([...stored.keys()]).toEqual([secretHash(nonce).toString('hex')]);
    expect(stored.get(secretHash(nonce).toString('hex'))).toEqual({
      tenantId: 'acme',
      expiresAt: new Date(Date.UTC(2026, 0, 1) + nonceLifetimeSeconds * 1000),
    });
  });

  it('answers TENANT_NOT_FOUND when the foreign key refuses an unknown tenant', async () => {
    const { service, fakes } = newTestService();
    fakes.refusal = databaseError('23503', 'oid4vci_nonce_tenant_id_fkey');
    const refusal = await service.issue('ghost').catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(DomainException);
    expect((refusal as DomainException).code).toBe('TENANT_NOT_FOUND');
  });

  it('lets any other refusal through: only the tenant key means the tenant is gone', async () => {
    const { service, fakes } = newTestService();
    fakes.refusal = databaseError('23505', 'oid4vci_nonce_pkey');
    await expect(service.issue('acme')).rejects.toBe(fakes.refusal);
    fakes.refusal = databaseError('23503', 'some_other_fkey');
    await expect(service.issue('acme')).rejects.toBe(fakes.refusal);
  });

  it('spends a nonce once, for its tenant, while it is in time', async () => {
    const { service, time } = newTestService();
    const nonce = await service.issue('acme');
    expect(await service.spend(manager, 'other', nonce)).toBe(false);
    const again = await service.issue('acme');
    expect(await service.spend(manager, 'acme', again)).toBe(true);
    expect(await service.spend(manager, 'acme', again)).toBe(false);
    const late = await service.issue('acme');
    time.advance(nonceLifetimeSeconds * 1000);
    expect(await service.spend(manager, 'acme', late)).toBe(false);
  });

  it('asks the repository with the hash and the clock’s time, never the nonce itself', async () => {
    const { service, time, spends } = newTestService();
    time.advance(42_000);
    await service.spend(manager, 'acme', 'the-nonce');
    expect(spends).toEqual([
      {
        tenantId: 'acme',
        hash: secretHash('the-nonce'),
        now: new Date(Date.UTC(2026, 0, 1) + 42_000),
      },
    ]);
  });

  it('purges in batches until one comes back short, and answers the total', async () => {
    const { service, fakes } = newTestService();
    fakes.batches = [10, 10, 3, 10];
    expect(await service.purgeExpired(10)).toBe(23);
    expect(fakes.batches).toEqual([10]);
  });
});
