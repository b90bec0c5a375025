import { jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import {
  createHash,
  createPublicKey,
  generateKeyPairSync,
  randomBytes,
  verify,
  type JsonWebKey,
} from 'node:crypto';
import { type EntityManager } from 'typeorm';
import { KeyVault } from '../secrets/key-vault.js';
import { didKeyPurpose, signingKeyPurpose } from './did.sealed-columns.js';
import { type DidRepository } from './did.repository.js';
import { jwkThumbprint } from '../jose/jwk.js';
import { TenantKeys } from './tenant-keys.service.js';
import { UnsealedKeys } from './unsealed-keys.js';
import {
  type InsertOutcome,
  type NewSigningKeyRecord,
  type TenantSigningKeyRepository,
} from './tenant-signing-key.repository.js';

/** tenant_signing_key as a map by tenant and algorithm, over a set of existing tenants. */
function fakeRepository(tenants: string[]) {
  const rows = new Map<string, NewSigningKeyRecord>();
  const insertManagers: EntityManager[] = [];
  const key = (tenantId: string, algorithm: string) => `${tenantId}/${algorithm}`;
  const repository = {
    insert: (record: NewSigningKeyRecord, manager: EntityManager) => {
      insertManagers.push(manager);
      rows.set(key(record.tenantId, record.algorithm), record);
      return Promise.resolve();
    },
    insertIfAbsent: (record: NewSigningKeyRecord): Promise<InsertOutcome> => {
      if (!tenants.includes(record.tenantId)) return Promise.resolve('no-tenant');
      if (rows.has(key(record.tenantId, record.algorithm))) return Promise.resolve('exists');
      rows.set(key(record.tenantId, record.algorithm), record);
      return Promise.resolve('inserted');
    },
    keyOf: (tenantId: string, algorithm: string) =>
      Promise.resolve(rows.get(key(tenantId, algorithm))),
    publicKeysOf: (tenantId: string) =>
      Promise.resolve([...rows.values()].filter((row) => row.tenantId === tenantId)),
  } satisfies Record<keyof TenantSigningKeyRepository, unknown>;
  return { rows, insertManagers, repository: repository as unknown as TenantSigningKeyRepository };
}

/** tenant_did of the given tenants: an Ed25519 key each, its seed sealed by `vault`. */
function fakeDids(tenants: string[], vault: KeyVault) {
  const rows = new Map(
    tenants.map((tenantId) => {
      const { publicKey, privateKey } = generateKeyPairSync('ed25519');
      const x = publicKey.export({ format: 'jwk' }).x!;
      const seed = Buffer.from(privateKey.export({ format: 'jwk' }).d!, 'base64url');
      const record = {
        did: `did:key:${tenantId}`,
        publicKey: Buffer.from(x, 'base64url'),
        privateKeySealed: vault.seal(tenantId, seed, didKeyPurpose),
        masterKeyId: vault.masterKeyId,
        createdAt: new Date(),
      };
      return [tenantId, record] as const;
    }),
  );
  return {
    rows,
    repository: {
      signingKeyOf: (tenantId: string) => Promise.resolve(rows.get(tenantId)),
      publicDidOf: (tenantId: string) => Promise.resolve(rows.get(tenantId)),
    } as unknown as DidRepository,
  };
}

describe('TenantKeys without a database', () => {
  const manager = {} as EntityManager;
  const vault = new KeyVault(randomBytes(32));
  const data = new TextEncoder().encode('header.payload');
  let fake: ReturnType<typeof fakeRepository>;
  let keys: TenantKeys;
  let dids: ReturnType<typeof fakeDids>;

  beforeEach(() => {
    fake = fakeRepository(['acme', 'other']);
    dids = fakeDids(['acme', 'other'], vault);
    keys = new TenantKeys(fake.repository, vault, dids.repository, new UnsealedKeys(vault, 10));
  });

  it("writes a P-256 key in the caller's transaction, kid its thumbprint, private key only sealed", async () => {
    await keys.createForTenant(manager, 'acme');
    const row = fake.rows.get('acme/ES256')!;
    expect(fake.insertManagers).toEqual([manager]);
    expect(row.publicJwk).toEqual({
      kty: 'EC',
      crv: 'P-256',
      x: row.publicJwk.x,
      y: row.publicJwk.y,
    });
    expect(row.kid).toBe(jwkThumbprint(row.publicJwk));
    expect(row.masterKeyId).toBe(vault.masterKeyId);
    // Opens for this tenant and purpose only, to the 32-byte scalar.
    expect(vault.open('acme', row.privateKeySealed, signingKeyPurpose)).toHaveLength(32);
    expect(() => vault.open('other', row.privateKeySealed, signingKeyPurpose)).toThrow();
    expect(() => vault.open('acme', row.privateKeySealed, 'did-private-key')).toThrow();
  });

  it('signs in the JOSE form, r || s in 64 bytes, verified by the public JWK', async () => {
    await keys.createForTenant(manager, 'acme');
    const key = await keys.es256SigningKey('acme');
    expect(key).toMatchObject({ alg: 'ES256', kid: fake.rows.get('acme/ES256')!.kid });
    const signature = await key.sign(data);
    expect(signature).toHaveLength(64);
    const publicKey = createPublicKey({ key: key.publicJwk, format: 'jwk' });
    expect(verify('sha256', data, { key: publicKey, dsaEncoding: 'ieee-p1363' }, signature)).toBe(
      true,
    );
  });

  it('gives a tenant without a key one on first use, and the same one to concurrent first uses', async () => {
    const logged = jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    try {
      const answers = await Promise.all(
        Array.from({ length: 5 }, () => keys.es256SigningKey('acme')),
      );
      expect(new Set(answers.map((answer) => answer.kid))).toEqual(
        new Set([fake.rows.get('acme/ES256')!.kid]),
      );
      expect(fake.rows.size).toBe(1);
      expect(logged).toHaveBeenCalledTimes(1);
      expect(logged).toHaveBeenCalledWith(
        expect.objectContaining({ event: 'signing-key.created', tenantId: 'acme' }),
      );
    } finally {
      logged.mockRestore();
    }
  });

  it("uses each tenant's own key", async () => {
    await keys.createForTenant(manager, 'acme');
    await keys.createForTenant(manager, 'other');
    const [mine, theirs] = await Promise.all([
      keys.es256SigningKey('acme'),
      keys.es256SigningKey('other'),
    ]);
    expect(mine.kid).not.toBe(theirs.kid);
    const theirKey = createPublicKey({ key: theirs.publicJwk, format: 'jwk' });
    const signature = await mine.sign(data);
    expect(verify('sha256', data, { key: theirKey, dsaEncoding: 'ieee-p1363' }, signature)).toBe(
      false,
    );
  });

  it('answers TENANT_NOT_FOUND for the key or public keys of an unknown tenant, writing nothing', async () => {
    await expect(keys.es256SigningKey('nobody')).rejects.toMatchObject({
      code: 'TENANT_NOT_FOUND',
      status: 404,
    });
    await expect(keys.publicKeys('nobody')).rejects.toMatchObject({ code: 'TENANT_NOT_FOUND' });
    expect(fake.rows.size).toBe(0);
  });

  it('refuses a key sealed under a master key this instance lacks, with a 503', async () => {
    await keys.createForTenant(manager, 'acme');
    const otherVault = new KeyVault(randomBytes(32));
    const elsewhere = new TenantKeys(
      fake.repository,
      otherVault,
      dids.repository,
      new UnsealedKeys(otherVault, 10),
    );
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    try {
      await expect(elsewhere.es256SigningKey('acme')).rejects.toMatchObject({
        code: 'SERVICE_UNAVAILABLE',
        status: 503,
      });
      expect(logged).toHaveBeenCalledWith(
        expect.objectContaining({ event: 'master-key.unknown', masterKeyId: vault.masterKeyId }),
      );
    } finally {
      logged.mockRestore();
    }
  });

  it('lists the public keys with their kids, public members only, making the ES256 key if missing', async () => {
    const logged = jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    try {
      const [listed] = await keys.publicKeys('acme');
      const row = fake.rows.get('acme/ES256')!;
      expect(await keys.publicKeys('acme')).toEqual([
        {
          kid: row.kid,
          alg: 'ES256',
          publicJwk: { kty: 'EC', crv: 'P-256', x: row.publicJwk.x, y: row.publicJwk.y },
        },
        {
          kid: expect.any(String) as string,
          alg: 'EdDSA',
          publicJwk: {
            kty: 'OKP',
            crv: 'Ed25519',
            x: dids.rows.get('acme')!.publicKey.toString('base64url'),
          },
        },
      ]);
      expect(listed.publicJwk).not.toHaveProperty('d');
    } finally {
      logged.mockRestore();
    }
  });

  it("signs EdDSA with the tenant's DID key, kid the RFC 7638 thumbprint of its OKP JWK", async () => {
    const key = await keys.eddsaSigningKey('acme');
    const x = dids.rows.get('acme')!.publicKey.toString('base64url');
    expect(key.publicJwk).toEqual({ kty: 'OKP', crv: 'Ed25519', x });
    // RFC 7638 §3.2: the required members crv, kty, x, in lexicographic order.
    const canonical = `{"crv":"Ed25519","kty":"OKP","x":"${x}"}`;
    expect(key.kid).toBe(createHash('sha256').update(canonical).digest('base64url'));
    const signature = await key.sign(data);
    const publicKey = createPublicKey({ key: key.publicJwk, format: 'jwk' });
    expect(verify(null, data, publicKey, signature)).toBe(true);
    const otherSignature = await (await keys.eddsaSigningKey('other')).sign(data);
    expect(verify(null, data, publicKey, otherSignature)).toBe(false);
    await expect(keys.eddsaSigningKey('nobody')).rejects.toMatchObject({
      code: 'TENANT_NOT_FOUND',
    });
  });

  it('unseals the ES256 key once for many signatures, and reads its row for each', async () => {
    await keys.createForTenant(manager, 'acme');
    const opened = jest.spyOn(vault, 'open');
    const read = jest.spyOn(fake.repository, 'keyOf');
    try {
      for (let i = 0; i < 3; i += 1) await (await keys.es256SigningKey('acme')).sign(data);
      expect(read).toHaveBeenCalledTimes(3);
      expect(opened).toHaveBeenCalledTimes(1);
    } finally {
      opened.mockRestore();
      read.mockRestore();
    }
  });

  it('signs with the new ES256 key once its row holds another (a rotation, a re-created tenant)', async () => {
    await keys.createForTenant(manager, 'acme');
    const old = await keys.es256SigningKey('acme');
    await old.sign(data);
    // Another instance, or a rotation, wrote a new key in the row's place.
    await keys.createForTenant(manager, 'acme');
    const current = await keys.es256SigningKey('acme');
    expect(current.kid).not.toBe(old.kid);
    const signature = await current.sign(data);
    const verifies = (jwk: JsonWebKey) =>
      verify(
        'sha256',
        data,
        { key: createPublicKey({ key: jwk, format: 'jwk' }), dsaEncoding: 'ieee-p1363' },
        signature,
      );
    expect(verifies(current.publicJwk)).toBe(true);
    expect(verifies(old.publicJwk)).toBe(false);
  });

  it("signs EdDSA with the DID key's new row after a change, the kept key not reused", async () => {
    const old = await keys.eddsaSigningKey('acme');
    await old.sign(data);
    dids.rows.set('acme', fakeDids(['acme'], vault).rows.get('acme')!);
    const current = await keys.eddsaSigningKey('acme');
    const signature = await current.sign(data);
    const publicKeyOf = (jwk: JsonWebKey) => createPublicKey({ key: jwk, format: 'jwk' });
    expect(verify(null, data, publicKeyOf(current.publicJwk), signature)).toBe(true);
    expect(verify(null, data, publicKeyOf(old.publicJwk), signature)).toBe(false);
  });
});
