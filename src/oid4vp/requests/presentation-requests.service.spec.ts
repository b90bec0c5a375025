import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { type DataSource, type EntityManager } from 'typeorm';
import { type AuditLog } from '../../audit/audit-log.js';
import { type Actor } from '../../auth/caller.js';
import { type Settings } from '../../config/settings.js';
import { type CertificatesService } from '../../certificates/certificates.service.js';
import { type DidService } from '../../did/did.service.js';
import { type TenantKeys } from '../../did/tenant-keys.service.js';
import { KeyVault } from '../../secrets/key-vault.js';
import { type TenantsService } from '../../tenants/tenants.service.js';
import { type PresentationRequestRepository } from './presentation-request.repository.js';
import { DcApiRequests } from '../dc-api-request.js';
import { VerifierIdentity } from '../verifier-identity.service.js';
import { PresentationRequestsService } from './presentation-requests.service.js';
import { requestLimits } from './request-limits.js';
import { codeOf } from '../../../test/support/service-fakes.js';

/** The create rule without a database: the repository records its calls. */
describe(PresentationRequestsService.name, () => {
  const actor = { subject: 'admin' } as Actor;
  const dcqlQuery = {
    credentials: [{ id: 'q', format: 'dc+sd-jwt', meta: { vct_values: ['https://a.example/v'] } }],
  };
  let steps: string[];
  let pending: number;
  let dids: Map<string, string>;
  let refusal: pg.DatabaseError | undefined;
  let audited: string[];
  let service: PresentationRequestsService;
  const settings = { PUBLIC_BASE_URL: 'https://agent.example' } as Settings;

  const repository = {
    // The statement's rule: inserted only below the cap.
    insertWithinCap: (_request: unknown, cap: number) => {
      steps.push('insert within cap');
      if (refusal !== undefined) return Promise.reject(refusal);
      return Promise.resolve(pending < cap);
    },
  } as unknown as PresentationRequestRepository;

  beforeEach(() => {
    steps = [];
    pending = 0;
    dids = new Map([['acme', 'did:key:z6MkAcme']]);
    refusal = undefined;
    audited = [];
    // No certificate: the tenant's DID is its client id.
    const identity = new VerifierIdentity(
      settings,
      { didsOf: () => Promise.resolve(dids) } as unknown as DidService,
      {} as TenantKeys,
      { activeChain: () => Promise.resolve(undefined) } as unknown as CertificatesService,
    );
    service = new PresentationRequestsService(
      {
        transaction: (run: (manager: EntityManager) => Promise<unknown>) => {
          steps.push('begin');
          return run({} as EntityManager);
        },
      } as unknown as DataSource,
      () => Date.parse('2026-01-01T00:00:00Z'),
      new KeyVault(randomBytes(32)),
      settings,
      { record: (action: string) => audited.push(action) } as unknown as AuditLog,
      repository,
      {
        requireTenant: (_tenantId: string, options?: { lock?: boolean }) => {
          if (options?.lock === true) steps.push('tenant row locked');
          return Promise.resolve();
        },
      } as unknown as TenantsService,
      identity,
      new DcApiRequests(identity),
    );
  });

  const create = () => service.create('acme', { dcqlQuery }, actor);

  it('inserts within the cap in one statement, without a transaction or the tenant row locked', async () => {
    const created = await create();
    expect(steps).toEqual(['insert within cap']);
    expect(created).toMatchObject({
      status: 'pending',
      clientId: 'decentralized_identifier:did:key:z6MkAcme',
    });
    expect(audited).toEqual(['oid4vp.request.create']);
  });

  it('refuses the request past the cap, and inserts nothing', async () => {
    pending = requestLimits.pendingPerTenant;
    expect(await codeOf(create())).toBe('PRESENTATION_REQUESTS_LIMIT_REACHED');
    expect(steps).toEqual(['insert within cap']);
    expect(audited).toEqual([]);
  });

  it('answers 404 when the tenant was deleted since it was checked, by its DID or its foreign key', async () => {
    dids = new Map();
    expect(await codeOf(create())).toBe('TENANT_NOT_FOUND');
    expect(steps).toEqual([]);
    dids = new Map([['acme', 'did:key:z6MkAcme']]);
    refusal = new pg.DatabaseError('refused by the server', 0, 'error');
    refusal.code = '23503';
    expect(await codeOf(create())).toBe('TENANT_NOT_FOUND');
    expect(audited).toEqual([]);
  });

  it('answers a DC API request without a client id when the tenant cannot sign (OpenID4VP 1.0 A.2)', async () => {
    const created = await service.create(
      'acme',
      { dcqlQuery, responseMode: 'dc_api', expectedOrigins: ['https://shop.example'] },
      actor,
    );
    expect(created.authorizationRequestUri).toBeUndefined();
    expect(created.dcApiRequest).toEqual({
      protocol: 'openid4vp-v1-unsigned',
      data: {
        response_type: 'vp_token',
        response_mode: 'dc_api',
        nonce: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        dcql_query: expect.objectContaining({ credentials: expect.any(Array) }),
        client_metadata: { vp_formats_supported: expect.any(Object) },
      },
    });
  });

  it.each([
    [{ responseMode: 'dc_api' }, 'expectedOrigins'],
    [
      {
        responseMode: 'dc_api.jwt',
        expectedOrigins: ['https://a.example'],
        redirectUri: 'https://a.example/r',
      },
      'redirectUri',
    ],
    [
      { responseMode: 'dc_api', expectedOrigins: ['https://a.example'], requestUriMethod: 'post' },
      'requestUriMethod',
    ],
    [{ expectedOrigins: ['https://a.example'] }, 'expectedOrigins'],
  ])('refuses %j, naming %s, and stores nothing', async (body, field) => {
    const refused = service.create('acme', { dcqlQuery, ...body } as never, actor);
    await expect(refused).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
    await expect(refused).rejects.toMatchObject({ errors: [expect.objectContaining({ field })] });
    expect(steps).toEqual([]);
  });
});
