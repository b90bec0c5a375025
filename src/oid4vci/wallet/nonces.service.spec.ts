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
    batches: [] as number[],
  };
  const repository = {
    insert: (tenantId: string, hash: Buffer, expiresAt: Date) => {
      if (fakes.refusal !== undefined) return Promise.reject(fakes.refusal);
      fakes.stored.set(hash.toString('hex'), { tenantId, expiresAt });
      return Promise.resolve();
    },
    deleteExpiredBatch: (_now: Date, limit: number) =>
      Promise.resolve(Math.min(limit, fakes.batches.shift() ?? 0)),
  } as unknown as NonceRepository;
  const service = new NoncesService(repository, time.clock);
  return { service, time, ...fakes, fakes };
}

describe(NoncesService.name, () => {
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

  it('purges in batches until one comes back short, and answers the total', async () => {
    const { service, fakes } = newTestService();
    fakes.batches = [10, 10, 3, 10];
    expect(await service.purgeExpired(10)).toBe(23);
    expect(fakes.batches).toEqual([10]);
  });
});
