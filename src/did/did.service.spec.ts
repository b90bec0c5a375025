import { jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { createPublicKey, randomBytes, verify } from 'node:crypto';
import { type EntityManager } from 'typeorm';
import { KeyVault } from '../secrets/key-vault.js';
import { ed25519DidKey } from './did-key.js';
import { type DidRepository, type NewDidRecord } from './did.repository.js';
import { DidService } from './did.service.js';
import { didKeyPurpose } from './did.sealed-columns.js';
import { type TenantKeys } from './tenant-keys.service.js';
import { UnsealedKeys } from './unsealed-keys.js';

/** tenant_did as a map, with the calls that reached it. */
function fakeRepository() {
  const rows = new Map<string, NewDidRecord & { createdAt: Date }>();
  const calls = { didsOf: [] as (readonly string[])[], insertManagers: [] as EntityManager[] };
  const repository = {
    insert: (record: NewDidRecord, manager: EntityManager) => {
      calls.insertManagers.push(manager);
      rows.set(record.tenantId, { ...record, createdAt: new Date('2026-01-02T03:04:05.678Z') });
      return Promise.resolve();
    },
    didOf: (tenantId: string) => Promise.resolve(rows.get(tenantId)?.did),
    didsOf: (tenantIds: readonly string[]) => {
      calls.didsOf.push(tenantIds);
      const found = tenantIds.flatMap((id) => {
        const row = rows.get(id);
        return row === undefined ? [] : [[id, row.did] as const];
      });
      return Promise.resolve(new Map(found));
    },
    publicDidOf: (tenantId: string) => Promise.resolve(rows.get(tenantId)),
    signingKeyOf: (tenantId: string) => Promise.resolve(rows.get(tenantId)),
  } satisfies Record<keyof DidRepository, unknown>;
  return { rows, calls, repository: repository as unknown as DidRepository };
}

describe('DidService without a database', () => {
  const manager = {} as EntityManager;
  const vault = new KeyVault(randomBytes(32));
  let fake: ReturnType<typeof fakeRepository>;
  let service: DidService;
  /** The ES256 keys TenantKeys was asked to make, with the transaction they were made in. */
  let keyCreations: [EntityManager, string][];
  let keys: TenantKeys;

  beforeEach(() => {
    fake = fakeRepository();
    keyCreations = [];
    keys = {
      createForTenant: (into: EntityManager, tenantId: string) => {
        keyCreations.push([into, tenantId]);
        return Promise.resolve();
      },
    } as unknown as TenantKeys;
    service = new DidService(fake.repository, vault, keys, new UnsealedKeys(vault, 10));
  });

  it("writes a new DID in the caller's transaction, its private key only sealed", async () => {
    const did = await service.createForTenant(manager, 'acme');
    const row = fake.rows.get('acme');
    expect(fake.calls.insertManagers).toEqual([manager]);
    expect(row).toMatchObject({ did, tenantId: 'acme', method: 'key', keyType: 'ed25519' });
    expect(row?.masterKeyId).toBe(vault.masterKeyId);
    expect(ed25519DidKey(row!.publicKey).did).toBe(did);
    // The box opens, for this tenant only, to the seed of the DID's key.
    expect(vault.open('acme', row!.privateKeySealed, didKeyPurpose)).toHaveLength(32);
    expect(() => vault.open('other', row!.privateKeySealed, didKeyPurpose)).toThrow();
    // The tenant's ES256 key is made in the same transaction.
    expect(keyCreations).toEqual([[manager, 'acme']]);
  });

  it("signs with the tenant's key: the signature verifies under the DID's public key", async () => {
    await service.createForTenant(manager, 'acme');
    const { did, verificationMethod, signer } = await service.signerFor('acme');
    expect(verificationMethod.startsWith(`${did}#z6Mk`)).toBe(true);
    const data = new TextEncoder().encode('signed');
    const signature = await signer.sign({ data });
    const x = fake.rows.get('acme')!.publicKey.toString('base64url');
    const publicKey = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' });
    expect(verify(null, data, publicKey, signature)).toBe(true);
  });

  it('answers TENANT_NOT_FOUND for the DID, document or signer of an unknown tenant', async () => {
    for (const read of [
      () => service.getDid('nobody'),
      () => service.getDocument('nobody'),
      () => service.signerFor('nobody'),
    ]) {
      await expect(read()).rejects.toMatchObject({ code: 'TENANT_NOT_FOUND', status: 404 });
    }
  });

  it('refuses to sign with a key sealed under a master key this instance lacks, with a 503', async () => {
    await service.createForTenant(manager, 'acme');
    const otherVault = new KeyVault(randomBytes(32));
    const elsewhere = new DidService(
      fake.repository,
      otherVault,
      keys,
      new UnsealedKeys(otherVault, 10),
    );
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    try {
      await expect(elsewhere.signerFor('acme')).rejects.toMatchObject({
        code: 'SERVICE_UNAVAILABLE',
        status: 503,
      });
      // The operator learns which key is missing; the caller does not.
      expect(logged).toHaveBeenCalledWith(
        expect.objectContaining({ event: 'master-key.unknown', masterKeyId: vault.masterKeyId }),
      );
    } finally {
      logged.mockRestore();
    }
  });

  it('answers the DID with the public key forms derived from the stored key', async () => {
    const did = await service.createForTenant(manager, 'acme');
    const identity = ed25519DidKey(fake.rows.get('acme')!.publicKey);
    expect(await service.getDid('acme')).toEqual({
      id: did,
      public: true,
      verkey: identity.verkey,
      method: 'key',
      keyType: 'ed25519',
      publicKeyMultibase: identity.publicKeyMultibase,
      createdAt: '2026-01-02T03:04:05.678Z',
    });
  });

  it('reads the DIDs of several tenants in one call, and none for no tenant', async () => {
    const a = await service.createForTenant(manager, 'a');
    const b = await service.createForTenant(manager, 'b');
    expect(await service.didsOf(['a', 'b', 'gone'])).toEqual(
      new Map([
        ['a', a],
        ['b', b],
      ]),
    );
    expect(await service.didsOf([])).toEqual(new Map());
    expect(fake.calls.didsOf).toEqual([['a', 'b', 'gone']]);
  });

  it("unseals the DID's key once for many signatures, until the tenant's deletion drops it", async () => {
    await service.createForTenant(manager, 'acme');
    const opened = jest.spyOn(vault, 'open');
    const data = new TextEncoder().encode('signed');
    try {
      for (let i = 0; i < 3; i += 1) await (await service.signerFor('acme')).signer.sign({ data });
      expect(opened).toHaveBeenCalledTimes(1);
      service.forgetKeysOf('acme');
      await (await service.signerFor('acme')).signer.sign({ data });
      expect(opened).toHaveBeenCalledTimes(2);
    } finally {
      opened.mockRestore();
    }
  });

  it('signs with the new key of a tenant deleted and made again under the same id', async () => {
    await service.createForTenant(manager, 'acme');
    const data = new TextEncoder().encode('signed');
    await (await service.signerFor('acme')).signer.sign({ data });
    // Its row replaced, as a deletion and a new tenant (on any instance) leave it: nothing forgotten here.
    await service.createForTenant(manager, 'acme');
    const signature = await (await service.signerFor('acme')).signer.sign({ data });
    const x = fake.rows.get('acme')!.publicKey.toString('base64url');
    const publicKey = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' });
    expect(verify(null, data, publicKey, signature)).toBe(true);
  });
});
