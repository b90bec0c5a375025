import { decodeProtectedHeader, exportJWK, generateKeyPair, jwtVerify } from 'jose';
import { sign } from 'node:crypto';
import { type DataSource } from 'typeorm';
import { type CertificatesService } from '../../certificates/certificates.service.js';
import { type Settings } from '../../config/settings.js';
import { DomainException } from '../../common/problem/domain.exception.js';
import { type TenantKeys } from '../../did/tenant-keys.service.js';
import { type DidService } from '../../did/did.service.js';
import {
  type ChangeStatement,
  type DomainEvent,
  type EventOutbox,
} from '../../events/event-outbox.js';
import { type Metrics } from '../../observability/metrics.js';
import { type StatusPurpose } from './bitstring.js';
import { type ListRow, type StatusListRepository } from './status-list.repository.js';
import { StatusListsService } from './status-lists.service.js';
import { decodeLst, statusAt } from './token-status-list.js';

const listId = '0b9e3c56-5c3d-4f4e-9a59-3f1d1c2b7a10';
const acmeDid = 'did:key:z6MkAcme';
const now = Date.parse('2026-06-01T12:00:00Z');
/** The service's clock, for jose's checks of `iat` and `exp`. */
const atNow = { currentDate: new Date(now) };

/** The tenant's ES256 key as TenantKeys answers it: a real P-256 key, so that jose can verify. */
async function es256Key() {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const publicJwk = await exportJWK(publicKey);
  const privateJwk = await exportJWK(privateKey);
  const key = {
    kid: 'es256-kid',
    alg: 'ES256' as const,
    sign: (data: Uint8Array) =>
      Promise.resolve(
        new Uint8Array(
          sign('sha256', data, { key: privateJwk, format: 'jwk', dsaEncoding: 'ieee-p1363' }),
        ),
      ),
  };
  return { key, publicKey, publicJwk };
}

/**
 * The service over plain fakes: lists by id, tenants' DIDs, the tenant's ES256 key and certificate
 * chain (`chain.current`, changed by a test), and what the outbox and metrics saw.
 */
function setUp(
  options: {
    changedRows?: number;
    dids?: Record<string, string>;
    key?: Awaited<ReturnType<typeof es256Key>>['key'];
  } = {},
) {
  const lists = new Map<string, ListRow>();
  const chain = { current: undefined as string[] | undefined, reads: 0 };
  const didReads: string[] = [];
  const changes: { change: ChangeStatement; event: DomainEvent }[] = [];
  const counted: string[] = [];
  const dids = options.dids ?? { acme: acmeDid };
  const byteReads: number[] = [];
  const repository: Partial<StatusListRepository> = {
    byteOf: (_tenantId, id, byteIndex) => {
      byteReads.push(byteIndex);
      const list = lists.get(id);
      return Promise.resolve(
        list && {
          purpose: list.purpose,
          length: list.bits.length,
          byte: byteIndex < list.bits.length ? list.bits[byteIndex] : null,
        },
      );
    },
    find: (_tenantId, id) => Promise.resolve(lists.get(id)),
    statusChange: (tenantId, credentialId, purpose, status) => ({
      sql: 'UPDATE ...',
      parameters: [tenantId, credentialId, purpose, status ? 1 : 0],
    }),
  };
  const didService: Partial<DidService> = {
    didsOf: ([tenantId]) => {
      didReads.push(tenantId);
      const did = dids[tenantId];
      return Promise.resolve(new Map(did === undefined ? [] : [[tenantId, did]]));
    },
  };
  const outbox: Partial<EventOutbox> = {
    withChange: <Row>(_runner: unknown, change: ChangeStatement, event: DomainEvent) => {
      changes.push({ change, event });
      return Promise.resolve(Array.from({ length: options.changedRows ?? 1 }, () => ({}) as Row));
    },
  };
  const metrics = {
    credentialStatusChanges: { inc: (labels: { change: string }) => counted.push(labels.change) },
  };
  const service = new StatusListsService(
    {} as DataSource,
    repository as StatusListRepository,
    { PUBLIC_BASE_URL: 'https://agent.example' } as Settings,
    didService as DidService,
    { es256SigningKey: () => Promise.resolve(options.key) } as unknown as TenantKeys,
    {
      activeChain: () => {
        chain.reads += 1;
        return Promise.resolve(chain.current);
      },
    } as unknown as CertificatesService,
    () => Promise.reject(new Error('no documents')),
    outbox as EventOutbox,
    metrics as unknown as Metrics,
    () => now,
  );
  return { service, lists, didReads, changes, counted, chain, byteReads };
}

/** A list whose entry 3 is set (index 0 is the most significant bit of the first byte). */
const listWithEntry3 = (purpose: StatusPurpose): ListRow => ({
  purpose,
  bits: Buffer.from([0b0001_0000, 0]),
  version: 1,
  updated_at: new Date('2026-06-01T11:00:00Z'),
});

const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'resolved',
    (error: unknown) => (error instanceof DomainException ? error.code : error),
  );

describe('status changes', () => {
  it('refuses to clear a revocation: it is final, and nothing is written', async () => {
    const { service, changes } = setUp();
    await expect(codeOf(service.setStatus('acme', 'urn:c:1', 'revocation', false))).resolves.toBe(
      'VALIDATION_FAILED',
    );
    expect(changes).toEqual([]);
  });

  it('is CREDENTIAL_NOT_FOUND when the credential has no entry of that purpose, and counts nothing', async () => {
    const { service, counted } = setUp({ changedRows: 0 });
    await expect(codeOf(service.setStatus('acme', 'urn:c:1', 'suspension', true))).resolves.toBe(
      'CREDENTIAL_NOT_FOUND',
    );
    expect(counted).toEqual([]);
  });

  it('writes the bit with its event in one statement and counts the change by its kind', async () => {
    const { service, changes, counted } = setUp();
    await service.setStatus('acme', 'urn:c:1', 'suspension', false);
    await service.setStatus('acme', 'urn:c:1', 'revocation', true);
    expect(changes.map(({ change }) => change.parameters)).toEqual([
      ['acme', 'urn:c:1', 'suspension', 0],
      ['acme', 'urn:c:1', 'revocation', 1],
    ]);
    expect(changes[0].event).toEqual({
      type: 'credential.status.changed',
      tenantId: 'acme',
      data: {
        tenantId: 'acme',
        credentialId: 'urn:c:1',
        statusPurpose: 'suspension',
        status: false,
      },
    });
    expect(counted).toEqual(['unsuspended', 'revoked']);
  });
});

describe('reading a bit of our own lists', () => {
  it("reads the verifying tenant's own list without reading its DID again", async () => {
    const { service, lists, didReads } = setUp();
    lists.set(listId, listWithEntry3('revocation'));
    const known = { tenantId: 'acme', did: acmeDid };
    expect(await service.bitOf('acme', listId, '3', 'revocation', acmeDid, known)).toBe(true);
    expect(await service.bitOf('acme', listId, '4', 'revocation', acmeDid, known)).toBe(false);
    expect(didReads).toEqual([]);
  });

  it('reads the one byte that holds the bit, and refuses an index that is none', async () => {
    const { service, lists, byteReads } = setUp();
    lists.set(listId, listWithEntry3('revocation'));
    const known = { tenantId: 'acme', did: acmeDid };
    expect(await service.bitOf('acme', listId, '3', 'revocation', acmeDid, known)).toBe(true);
    expect(await service.bitOf('acme', listId, '11', 'revocation', acmeDid, known)).toBe(false);
    expect(await service.bitOf('acme', listId, '15', 'revocation', acmeDid, known)).toBe(false);
    for (const index of ['16', '-1', '2.5', 'three', '1e300']) {
      expect(await service.bitOf('acme', listId, index, 'revocation', acmeDid, known)).toBe(
        `statusListIndex ${index} is outside the list`,
      );
    }
    expect(byteReads).toEqual([0, 1, 1, 2, 0, 0, 0, 1.25e299]);
  });

  it("reads another tenant's DID beside its list, once per list", async () => {
    const { service, lists, didReads } = setUp();
    lists.set(listId, listWithEntry3('revocation'));
    const known = { tenantId: 'other', did: 'did:key:z6MkOther' };
    expect(await service.bitOf('acme', listId, '3', 'revocation', acmeDid, known)).toBe(true);
    expect(await service.bitOf('acme', listId, '3', 'revocation', acmeDid, known)).toBe(true);
    expect(didReads).toEqual(['acme']);
  });

  it("says why when the list is not the issuer's, is for another purpose, or is gone", async () => {
    const { service, lists } = setUp();
    lists.set(listId, listWithEntry3('suspension'));
    const known = { tenantId: 'acme', did: acmeDid };
    expect(await service.bitOf('acme', listId, '3', 'suspension', 'did:key:z6MkElse', known)).toBe(
      `the status list is issued by '${acmeDid}', not by the credential's issuer`,
    );
    expect(await service.bitOf('acme', listId, '3', 'revocation', acmeDid, known)).toBe(
      'the status list is for suspension, not revocation',
    );
    expect(await service.bitOf('acme', listId, '99999999', 'suspension', acmeDid, known)).toBe(
      'statusListIndex 99999999 is outside the list',
    );
    const gone = 'the status list does not exist (its tenant may be deleted)';
    expect(await service.bitOf('acme', 'f'.repeat(36), '3', 'suspension', acmeDid, known)).toBe(
      gone,
    );
  });

  it('treats a list whose tenant is gone as no list', async () => {
    const { service, lists } = setUp({ dids: {} });
    lists.set(listId, listWithEntry3('revocation'));
    expect(await service.bitOf('acme', listId, '3', 'revocation', acmeDid)).toBe(
      'the status list does not exist (its tenant may be deleted)',
    );
  });
});

describe('public lists', () => {
  it('answers STATUS_LIST_NOT_FOUND for an unknown list', async () => {
    const { service } = setUp();
    await expect(codeOf(service.publicList('acme', listId))).resolves.toBe('STATUS_LIST_NOT_FOUND');
    await expect(codeOf(service.publicList('acme', 'not-a-list'))).resolves.toBe(
      'STATUS_LIST_NOT_FOUND',
    );
  });
});

describe('Status List Tokens', () => {
  it('carries no x5c while the tenant has no certificate, and verifies with the key', async () => {
    const { key, publicKey } = await es256Key();
    const { service, lists } = setUp({ key });
    lists.set(listId, listWithEntry3('revocation'));
    const { token } = await service.tokenList('acme', listId);
    const { protectedHeader } = await jwtVerify(token, publicKey, {
      ...atNow,
      typ: 'statuslist+jwt',
    });
    expect(protectedHeader).toEqual({ typ: 'statuslist+jwt', alg: 'ES256', kid: 'es256-kid' });
  });

  it('carries the active chain in x5c, and signs again once another certificate is active', async () => {
    const { key, publicKey } = await es256Key();
    const { service, lists, chain } = setUp({ key });
    lists.set(listId, listWithEntry3('revocation'));
    chain.current = ['bGVhZi0x', 'aW50ZXJtZWRpYXRl'];
    const first = (await service.tokenList('acme', listId)).token;
    expect(decodeProtectedHeader(first)).toEqual({
      typ: 'statuslist+jwt',
      alg: 'ES256',
      kid: 'es256-kid',
      x5c: ['bGVhZi0x', 'aW50ZXJtZWRpYXRl'],
    });
    // The same list and chain: the token signed before.
    expect((await service.tokenList('acme', listId)).token).toBe(first);
    chain.current = ['bGVhZi0y', 'aW50ZXJtZWRpYXRl'];
    const next = (await service.tokenList('acme', listId)).token;
    expect(decodeProtectedHeader(next).x5c).toEqual(['bGVhZi0y', 'aW50ZXJtZWRpYXRl']);
    await expect(jwtVerify(next, publicKey, atNow)).resolves.toBeDefined();
    // Read on every request: the chain is a row, not remembered here.
    expect(chain.reads).toBe(3);
  });

  it('reads no chain for a list that is not there', async () => {
    const { service, chain } = setUp();
    await expect(codeOf(service.tokenList('acme', listId))).resolves.toBe('STATUS_LIST_NOT_FOUND');
    expect(chain.reads).toBe(0);
  });

  it('says from the row, at each index, what the signed token says, without signing one', async () => {
    const { key, publicKey } = await es256Key();
    const { service, lists } = setUp({ key });
    lists.set(listId, listWithEntry3('revocation'));
    const { token } = await service.tokenList('acme', listId);
    const { payload } = await jwtVerify(token, publicKey, atNow);
    const bytes = decodeLst((payload.status_list as { lst: string }).lst) as Uint8Array;
    for (const idx of [0, 2, 3, 4, 8, 15, 16, 17, 2 ** 40]) {
      expect(await service.tokenStatusOf('acme', listId, idx)).toEqual({
        issuer: payload.iss,
        status: statusAt(bytes, 1, idx),
      });
    }
    expect((await service.tokenStatusOf('acme', listId, 3))?.status).toBe(1);
  });

  it('has no token status for a suspension list, an unknown list or an id that is no UUID', async () => {
    const { service, lists } = setUp();
    lists.set(listId, listWithEntry3('suspension'));
    lists.set('0'.repeat(36), listWithEntry3('revocation'));
    expect(await service.tokenStatusOf('acme', listId, 3)).toBeUndefined();
    expect(await service.tokenStatusOf('acme', listId.replace('0b', '1b'), 3)).toBeUndefined();
    expect(await service.tokenStatusOf('acme', '-'.repeat(36), 3)).toBeUndefined();
  });
});
