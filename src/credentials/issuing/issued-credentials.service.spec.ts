import { type Settings } from '../../config/settings.js';
import { DomainException } from '../../common/problem/domain.exception.js';
import { tenantNotFound } from '../../tenancy/tenant.errors.js';
import { type DidService } from '../../did/did.service.js';
import {
  type IssuedCredentialRepository,
  type RecordFilter,
  type RecordRow,
  type RecordWindow,
} from './issued-credential.repository.js';
import { IssuedCredentialsService } from './issued-credentials.service.js';

const row = (n: number): RecordRow => ({
  id: `urn:example:${n}`,
  types: ['VerifiableCredential'],
  cryptosuite: 'eddsa-rdfc-2022',
  format: 'ldp_vc',
  offer_id: null,
  configuration_id: null,
  created_at: new Date(Date.UTC(2026, 0, 1, 0, 0, n)),
  state: 'active',
  cursor_at: `2026-01-01T00:00:${String(n).padStart(2, '0')}.000000Z`,
  status: [{ statusPurpose: 'revocation', listId: 'list-1', statusListIndex: 7, set: false }],
});

/** The service over a fake repository holding `rows` (newest first) for tenant acme only. */
function setUp(rows: RecordRow[]) {
  const pages: { filter: RecordFilter; window: RecordWindow }[] = [];
  let counts = 0;
  const records: Partial<IssuedCredentialRepository> = {
    page: (_tenantId, filter, window) => {
      pages.push({ filter, window });
      return Promise.resolve(rows.slice(window.offset, window.offset + window.limit));
    },
    count: () => {
      counts++;
      return Promise.resolve(rows.length);
    },
    findById: (_tenantId, id) => Promise.resolve(rows.find((record) => record.id === id)),
  };
  const dids: Partial<DidService> = {
    getDid: (tenantId) =>
      tenantId === 'acme'
        ? Promise.resolve({} as Awaited<ReturnType<DidService['getDid']>>)
        : Promise.reject(tenantNotFound(tenantId)),
  };
  const service = new IssuedCredentialsService(
    records as IssuedCredentialRepository,
    dids as DidService,
    { PUBLIC_BASE_URL: 'https://agent.example' } as Settings,
  );
  return { service, pages, counts: () => counts };
}

const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'resolved',
    (error: unknown) => (error instanceof DomainException ? error.code : error),
  );

describe('issued credentials', () => {
  it('answers one record with its status list URL, and CREDENTIAL_NOT_FOUND for an unknown id', async () => {
    const { service } = setUp([row(1)]);
    expect(await service.get('acme', 'urn:example:1')).toEqual({
      id: 'urn:example:1',
      types: ['VerifiableCredential'],
      cryptosuite: 'eddsa-rdfc-2022',
      format: 'ldp_vc',
      doctype: null,
      offerId: null,
      configurationId: null,
      issuedAt: '2026-01-01T00:00:01.000Z',
      state: 'active',
      status: [
        {
          statusPurpose: 'revocation',
          statusListCredential: 'https://agent.example/ctrl/status-lists/acme/list-1',
          statusListIndex: '7',
          set: false,
        },
      ],
    });
    await expect(codeOf(service.get('acme', 'urn:example:2'))).resolves.toBe(
      'CREDENTIAL_NOT_FOUND',
    );
  });

  it('shows an mdoc as mso_mdoc with its doctype, and an unknown stored format as ldp_vc', async () => {
    const mdoc = {
      ...row(2),
      types: ['org.iso.18013.5.1.mDL'],
      cryptosuite: 'ES256',
      format: 'mso_mdoc',
      offer_id: 'offer-1',
      configuration_id: 'mDL',
    };
    const { service } = setUp([mdoc, { ...row(3), format: 'jwt_vc_json' }]);
    expect(await service.get('acme', mdoc.id)).toMatchObject({
      format: 'mso_mdoc',
      doctype: 'org.iso.18013.5.1.mDL',
      types: ['org.iso.18013.5.1.mDL'],
      cryptosuite: 'ES256',
      configurationId: 'mDL',
    });
    expect(await service.get('acme', 'urn:example:3')).toMatchObject({
      format: 'ldp_vc',
      doctype: null,
    });
  });

  it('is TENANT_NOT_FOUND for an unknown tenant before any record is read', async () => {
    const { service, pages } = setUp([row(1)]);
    await expect(codeOf(service.list('ghost', {}))).resolves.toBe('TENANT_NOT_FOUND');
    expect(pages).toEqual([]);
  });

  it('counts a numbered page, reads one row more to tell if more follow, and passes the filters', async () => {
    const { service, pages } = setUp([row(3), row(2), row(1)]);
    const page = await service.list('acme', {
      size: 2,
      type: 'AlumniCredential',
      status: 'active',
    });
    expect(pages[0]).toEqual({
      filter: { type: 'AlumniCredential', state: 'active' },
      window: { limit: 3, offset: 0, after: undefined },
    });
    expect(page).toMatchObject({ number: 0, size: 2, totalElements: 3, totalPages: 2 });
    expect(page.content.map((record) => record.id)).toEqual(['urn:example:3', 'urn:example:2']);
    expect(page.after).not.toBeNull();
  });

  it('counts nothing on a page after a cursor, and gives no cursor on the last page', async () => {
    const { service, pages, counts } = setUp([row(1)]);
    const first = await service.list('acme', { size: 1 });
    expect(first.after).toBeNull();
    const cursor = Buffer.from(JSON.stringify(['2026-01-01T00:00:02.000000Z', 'urn:example:2']));
    const next = await service.list('acme', { size: 1, after: cursor.toString('base64url') });
    expect(pages[1].window.after).toEqual({
      at: '2026-01-01T00:00:02.000000Z',
      id: 'urn:example:2',
    });
    expect(next).toMatchObject({ number: null, totalElements: null, totalPages: null });
    expect(counts()).toBe(1);
  });
});
