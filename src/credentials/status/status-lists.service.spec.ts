import { type DataSource } from 'typeorm';
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

const listId = '0b9e3c56-5c3d-4f4e-9a59-3f1d1c2b7a10';
const acmeDid = 'did:key:z6MkAcme';

/** The service over plain fakes: lists by id, tenants' DIDs, and what the outbox and metrics saw. */
function setUp(options: { changedRows?: number; dids?: Record<string, string> } = {}) {
  const lists = new Map<string, Pick<ListRow, 'purpose' | 'bits'>>();
  const didReads: string[] = [];
  const changes: { change: ChangeStatement; event: DomainEvent }[] = [];
  const counted: string[] = [];
  const dids = options.dids ?? { acme: acmeDid };
  const repository: Partial<StatusListRepository> = {
    bitsOf: (_tenantId, id) => Promise.resolve(lists.get(id)),
    find: () => Promise.resolve(undefined),
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
    {} as TenantKeys,
    () => Promise.reject(new Error('no documents')),
    outbox as EventOutbox,
    metrics as unknown as Metrics,
    () => Date.parse('2026-06-01T12:00:00Z'),
  );
  return { service, lists, didReads, changes, counted };
}

/** A list whose entry 3 is set (index 0 is the most significant bit of the first byte). */
const listWithEntry3 = (purpose: StatusPurpose) => ({
  purpose,
  bits: Buffer.from([0b0001_0000, 0]),
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
