import { pngShowsLink } from './support/qr-png.js';
import { RequestHousekeeping } from '../src/oid4vp/requests/request-housekeeping.js';
import {
  disclosedClaimsPurpose,
  requestSecretsPurpose,
  type RequestSecrets,
} from '../src/oid4vp/requests/presentation-request.sealed-columns.js';
import { referenceHashOf } from '../src/oid4vp/verifier-urls.js';
import { KeyVault } from '../src/secrets/key-vault.js';
import { queryDatabase } from './support/database.js';
import { logStatements } from './support/statement-log.js';
import { expectFieldErrors, expectProblem } from './support/problems.js';
import { startTestService, type TestService } from './support/test-service.js';

const base = '/ctrl/api/v1.0/oid4vp/requests';
type Json = Record<string, unknown>;
interface Created {
  id: string;
  status: string;
  responseMode: string;
  clientId: string;
  authorizationRequestUri: string;
  expiresAt: string;
}

const vct = 'https://globex.example/credentials/alumni';
const dcqlQuery = {
  credentials: [
    {
      id: 'alumni',
      format: 'dc+sd-jwt',
      meta: { vct_values: [vct] },
      claims: [{ path: ['given_name'] }, { path: ['alumni_of'] }],
    },
  ],
};
const sdJwtQuery = (extra: Json) => ({
  credentials: [{ id: 'q', format: 'dc+sd-jwt', meta: { vct_values: [vct] }, ...extra }],
});

/**
 * A tenant's OpenID4VP presentation requests over real HTTP and PostgreSQL: the link, the DCQL checks,
 * tenant isolation, paging, deletion, the QR codes, expiry, the claims' retention and the cap.
 */
describe('OpenID4VP presentation requests', () => {
  let service: TestService;
  let offset = 0;
  const lines: string[] = [];

  beforeAll(async () => {
    service = await startTestService({
      clock: () => Date.now() + offset,
      logDestination: { write: (line) => lines.push(line) },
    });
    for (const id of ['demo', 'other', 'full', 'paged']) {
      await service.client().createTenant({ id, label: id });
    }
  });
  afterAll(() => service.close());
  afterEach(() => {
    offset = 0;
  });

  const create = (body: unknown, tenantId = 'demo', as: 'admin' | 'demo' = 'admin') =>
    service.request<Json>(base, { method: 'POST', as, headers: { 'x-tenant-id': tenantId }, body });
  const created = async (body: Json = {}, tenantId = 'demo'): Promise<Created> => {
    // The DID's client id, as these tests read it; test/oid4vp-x509.e2e-spec.ts has the x509 ones.
    const response = await create(
      { dcqlQuery, clientIdPrefix: 'decentralized_identifier', ...body },
      tenantId,
    );
    expect(response.status).toBe(201);
    return response.body as unknown as Created;
  };
  const read = (path: string, tenantId = 'demo') =>
    service.request<Json>(path, { headers: { 'x-tenant-id': tenantId } });
  const requestRows = async () =>
    (
      await queryDatabase<{ count: number }>(
        service.databaseUrl,
        'SELECT count(*)::int AS count FROM oid4vp_request',
      )
    )[0].count;
  const stored = async (id: string) =>
    (
      await queryDatabase<Json>(
        service.databaseUrl,
        `SELECT * FROM oid4vp_request WHERE id = '${id}'`,
      )
    )[0];
  const secretsOf = (row: Json) =>
    JSON.parse(
      service.app
        .get(KeyVault)
        .open(
          row.tenant_id as string,
          row.secrets_sealed as Buffer,
          requestSecretsPurpose,
          row.master_key_id as string,
        )
        .toString('utf8'),
    ) as RequestSecrets;

  it('opens a direct_post request: the link names the tenant’s DID and a request_uri by reference', async () => {
    const request = await created();
    const did = ((await read('/ctrl/api/v1.0/did')).body as { id: string }).id;
    expect(did).toMatch(/^did:key:z6Mk/);
    expect(request).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      status: 'pending',
      responseMode: 'direct_post',
      clientId: `decentralized_identifier:${did}`,
      authorizationRequestUri: expect.any(String),
      expiresAt: expect.any(String),
    });
    expect(request.authorizationRequestUri).toMatch(
      /^openid4vp:\/\/\?client_id=decentralized_identifier%3Adid%3Akey%3Az6Mk[^&]+&request_uri=/,
    );
    const link = new URL(request.authorizationRequestUri);
    expect([...link.searchParams.keys()]).toEqual(['client_id', 'request_uri']);
    expect(link.searchParams.get('client_id')).toBe(`decentralized_identifier:${did}`);
    const requestUri = link.searchParams.get('request_uri')!;
    expect(requestUri).toMatch(
      new RegExp(`^${service.publicBaseUrl}/ctrl/oid4vp/demo/requests/[A-Za-z0-9_-]{43}$`),
    );
    expect(Date.parse(request.expiresAt) - Date.now()).toBeGreaterThan(290_000);
    expect(Date.parse(request.expiresAt) - Date.now()).toBeLessThanOrEqual(300_000);

    // The reference is stored hashed and sealed; nonce and state are fresh 256-bit values.
    const row = await stored(request.id);
    const reference = requestUri.split('/').pop()!;
    expect(row).toMatchObject({
      status: 'pending',
      response_mode: 'direct_post',
      request_uri_method: 'get',
      trusted_issuers: null,
      client_id: `decentralized_identifier:${did}`,
      master_key_id: expect.any(String),
      claims_sealed: null,
    });
    expect(row.reference_hash).toEqual(referenceHashOf(reference));
    expect(row.nonce).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(row.state).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(row.nonce).not.toBe(row.state);
    expect((row.secrets_sealed as Buffer).toString('latin1')).not.toContain(reference);
    expect(secretsOf(row)).toEqual({ reference });
    // The query is kept as the DCQL library reads it: its defaults explicit.
    expect(row.dcql_query).toEqual({
      credentials: [
        {
          ...dcqlQuery.credentials[0],
          multiple: false,
          require_cryptographic_holder_binding: true,
        },
      ],
    });
    expect(lines.join('\n')).not.toContain(reference);
    expect(
      lines.some((line) => line.includes('oid4vp.request.create') && line.includes(request.id)),
    ).toBe(true);
  });

  it('opens a direct_post.jwt request with request_uri_method=post: an ephemeral P-256 key is sealed', async () => {
    const request = await created({
      responseMode: 'direct_post.jwt',
      requestUriMethod: 'post',
      expiresInSeconds: 3600,
      trustedIssuers: ['did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK'],
    });
    expect(request.responseMode).toBe('direct_post.jwt');
    const link = new URL(request.authorizationRequestUri);
    expect([...link.searchParams.keys()]).toEqual([
      'client_id',
      'request_uri',
      'request_uri_method',
    ]);
    expect(link.searchParams.get('request_uri_method')).toBe('post');
    expect(Date.parse(request.expiresAt) - Date.now()).toBeGreaterThan(3_590_000);
    const row = await stored(request.id);
    expect(row.trusted_issuers).toEqual([
      'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK',
    ]);
    const { responseKey } = secretsOf(row);
    expect(responseKey).toEqual({
      kty: 'EC',
      crv: 'P-256',
      x: expect.any(String),
      y: expect.any(String),
      d: expect.any(String),
      kid: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
      use: 'enc',
      alg: 'ECDH-ES',
    });
    // The private key is nowhere in clear.
    expect((row.secrets_sealed as Buffer).toString('latin1')).not.toContain(
      responseKey!.d as string,
    );
    const view = await read(`${base}/${request.id}`);
    expect(JSON.stringify(view.body)).not.toContain(responseKey!.d as string);
    expect(view.body).toMatchObject({ requestUriMethod: 'post', responseMode: 'direct_post.jwt' });
  });

  it.each<[string, unknown, string[]]>([
    ['no credentials', { credentials: [] }, ['dcqlQuery.credentials']],
    [
      'a query id with a space',
      { credentials: [{ ...dcqlQuery.credentials[0], id: 'a b' }] },
      ['dcqlQuery.credentials.0.id'],
    ],
    [
      'an empty claim path',
      sdJwtQuery({ claims: [{ path: [] }] }),
      ['dcqlQuery.credentials.0.claims.0.path'],
    ],
    [
      'a claim path of objects',
      sdJwtQuery({ claims: [{ path: [{}] }] }),
      ['dcqlQuery.credentials.0.claims.0.path.0'],
    ],
    [
      'vct_values that are not an array',
      { credentials: [{ id: 'q', format: 'dc+sd-jwt', meta: { vct_values: vct } }] },
      ['dcqlQuery.credentials.0.meta.vct_values'],
    ],
    [
      'a dc+sd-jwt query without vct_values',
      { credentials: [{ id: 'q', format: 'dc+sd-jwt' }] },
      ['dcqlQuery.credentials.0.meta.vct_values'],
    ],
    [
      'an ldp_vc query without type_values',
      { credentials: [{ id: 'q', format: 'ldp_vc', meta: {} }] },
      ['dcqlQuery.credentials.0.meta.type_values'],
    ],
    [
      'two queries with one id',
      { credentials: [dcqlQuery.credentials[0], dcqlQuery.credentials[0]] },
      ['dcqlQuery'],
    ],
    [
      'a claim set naming an unknown claim',
      sdJwtQuery({ claims: [{ id: 'a', path: ['a'] }], claim_sets: [['b']] }),
      ['dcqlQuery'],
    ],
    [
      'a credential set naming an unknown query',
      { ...dcqlQuery, credential_sets: [{ options: [['nope']] }] },
      ['dcqlQuery'],
    ],
    [
      'an unknown format',
      { credentials: [{ id: 'q', format: 'jwt_vc_json', meta: { type_values: [['x']] } }] },
      ['dcqlQuery.credentials.0.format'],
    ],
    [
      'an mdoc query without doctype_value',
      { credentials: [{ id: 'q', format: 'mso_mdoc', meta: {} }] },
      ['dcqlQuery.credentials.0.meta.doctype_value'],
    ],
    [
      'an mdoc claim path that is not [namespace, element]',
      {
        credentials: [
          {
            id: 'q',
            format: 'mso_mdoc',
            meta: { doctype_value: 'org.iso.18013.5.1.mDL' },
            claims: [{ path: ['org.iso.18013.5.1', 'driving_privileges', 0] }],
          },
        ],
      },
      ['dcqlQuery.credentials.0.claims.0.path'],
    ],
    [
      'the draft SD-JWT format name',
      { credentials: [{ id: 'q', format: 'vc+sd-jwt', meta: { vct_values: [vct] } }] },
      ['dcqlQuery.credentials.0.format'],
    ],
    [
      'a query over 16 KiB',
      sdJwtQuery({ claims: [{ path: ['x'.repeat(17_000)] }] }),
      ['dcqlQuery'],
    ],
    ['a query nested too deeply', sdJwtQuery({ x: [[[[[[[[[['deep']]]]]]]]]] }), ['dcqlQuery']],
    [
      '17 credential queries',
      {
        credentials: Array.from({ length: 17 }, (_, i) => ({
          ...dcqlQuery.credentials[0],
          id: `q${i}`,
        })),
      },
      ['dcqlQuery.credentials'],
    ],
    [
      '65 claims',
      sdJwtQuery({ claims: Array.from({ length: 65 }, (_, i) => ({ path: [`c${i}`] })) }),
      ['dcqlQuery.credentials.0.claims'],
    ],
    [
      'a path of 17 elements',
      sdJwtQuery({ claims: [{ path: Array.from({ length: 17 }, () => 'a') }] }),
      ['dcqlQuery.credentials.0.claims.0.path'],
    ],
    ['a query that is not an object', ['credentials'], ['dcqlQuery']],
  ])('refuses %s (400 naming it, nothing stored)', async (_, query, fields) => {
    const before = await requestRows();
    const response = await create({ dcqlQuery: query });
    const problem = expectProblem(response, 400, 'VALIDATION_FAILED', base);
    expectFieldErrors(problem, fields);
    expect(await requestRows()).toBe(before);
  });

  it('creates a request in few round trips: the insert within the cap is one statement', async () => {
    const statements = logStatements(service.dataSource, service.app.getHttpServer());
    try {
      const { result, statements: sent } = await statements.during(base, () =>
        create({ dcqlQuery, clientIdPrefix: 'decentralized_identifier' }),
      );
      expect(result.status).toBe(201);
      expect(sent.filter((text) => /oid4vp_request|presentation_request/.test(text))).toEqual([
        'SELECT insert_presentation_request_within_cap($1, $2, $3) AS inserted',
      ]);
      expect(sent.filter((text) => /^(START TRANSACTION|BEGIN|COMMIT)/.test(text))).toEqual([]);
    } finally {
      statements.restore();
    }
  });

  it('names the unsupported format in the problem', async () => {
    const response = await create({
      dcqlQuery: {
        credentials: [{ id: 'q', format: 'jwt_vc_json', meta: { type_values: [['x']] } }],
      },
    });
    const problem = expectProblem(response, 400, 'VALIDATION_FAILED', base);
    expect(problem.detail).toContain('jwt_vc_json');
    expect(problem.detail).toContain('dc+sd-jwt, ldp_vc, mso_mdoc');
  });

  it.each<[string, Json, string]>([
    ['an unknown response mode', { responseMode: 'fragment' }, 'responseMode'],
    ['an unknown request_uri method', { requestUriMethod: 'put' }, 'requestUriMethod'],
    ['expiresInSeconds under 60', { expiresInSeconds: 59 }, 'expiresInSeconds'],
    ['expiresInSeconds over an hour', { expiresInSeconds: 3601 }, 'expiresInSeconds'],
    ['trustedIssuers that is not an array', { trustedIssuers: 'did:key:z6Mk' }, 'trustedIssuers'],
    ['an empty trustedIssuers', { trustedIssuers: [] }, 'trustedIssuers'],
    [
      '101 trusted issuers',
      { trustedIssuers: Array.from({ length: 101 }, (_, i) => `did:web:i${i}.example`) },
      'trustedIssuers',
    ],
    [
      'a trusted issuer over 2048 characters',
      { trustedIssuers: ['x'.repeat(2049)] },
      'trustedIssuers',
    ],
    ['a trusted issuer with a space', { trustedIssuers: ['did:web:a b'] }, 'trustedIssuers'],
    ['an unknown field', { nonce: 'mine' }, 'nonce'],
  ])('refuses %s (400, nothing stored)', async (_, extra, field) => {
    const before = await requestRows();
    const response = await create({ dcqlQuery, ...extra });
    expectFieldErrors(expectProblem(response, 400, 'VALIDATION_FAILED', base), [field]);
    expect(await requestRows()).toBe(before);
  });

  it('keeps tenants apart and refuses missing or forged tokens and tenant headers', async () => {
    const request = await created();
    const path = `${base}/${request.id}`;
    for (const [target, method] of [
      [path, 'GET'],
      [`${path}/delete`, 'POST'],
      [`${path}/qr.svg`, 'GET'],
      [`${path}/qr.png`, 'GET'],
    ] as const) {
      const response = await service.request(target, {
        method,
        headers: { 'x-tenant-id': 'other' },
      });
      expectProblem(response, 404, 'PRESENTATION_REQUEST_NOT_FOUND', target);
    }
    expectProblem(
      await read(`${base}/not-a-uuid`),
      404,
      'PRESENTATION_REQUEST_NOT_FOUND',
      `${base}/not-a-uuid`,
    );
    expect((await read(base, 'other')).body).toMatchObject({ totalElements: 0 });
    expectProblem(await create({ dcqlQuery }, 'other', 'demo'), 403, 'FORBIDDEN', base);
    expectProblem(
      await service.request(path, { as: 'demo', headers: { 'x-tenant-id': 'other' } }),
      403,
      'FORBIDDEN',
      path,
    );
    expectProblem(await create({ dcqlQuery }, 'nobody'), 404, 'TENANT_NOT_FOUND', base);
    expectProblem(
      await service.request(base, { as: 'anonymous', headers: { 'x-tenant-id': 'demo' } }),
      401,
      'UNAUTHORIZED',
      base,
    );
    expectProblem(
      await service.request(path, { token: 'not.a.token', headers: { 'x-tenant-id': 'demo' } }),
      401,
      'UNAUTHORIZED',
      path,
    );
    expectProblem(await service.request(path), 400, 'TENANT_HEADER_MISSING', path);
    expectProblem(
      await service.request(path, { headers: { 'x-tenant-id': '../demo' } }),
      400,
      'TENANT_HEADER_INVALID',
      path,
    );
    // The agent-user of the tenant itself may do all of it.
    const own = await create({ dcqlQuery }, 'demo', 'demo');
    expect(own.status).toBe(201);
    expect(
      (await service.request(path, { as: 'demo', headers: { 'x-tenant-id': 'demo' } })).status,
    ).toBe(200);
  });

  it('lists newest first in pages, and reads one request', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await created({}, 'paged')).id);
    const page = (query: Record<string, string>) =>
      service.request<Json>(base, { as: 'admin', headers: { 'x-tenant-id': 'paged' }, query });
    const first = await page({ size: '2' });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ number: 0, size: 2, totalElements: 3, totalPages: 2 });
    const second = await page({ size: '2', page: '1' });
    const listed = [...(first.body.content as Json[]), ...(second.body.content as Json[])];
    expect(listed.map((entry) => entry.id)).toEqual([...ids].reverse());
    const ascending = await page({ sort: 'createdAt,asc' });
    expect((ascending.body.content as Json[]).map((entry) => entry.id)).toEqual(ids);
    expectProblem(await page({ sort: 'id' }), 400, 'VALIDATION_FAILED', base);

    const view = await read(`${base}/${ids[0]}`, 'paged');
    expect(view.status).toBe(200);
    expect(view.body).toEqual({
      id: ids[0],
      status: 'pending',
      responseMode: 'direct_post',
      requestUriMethod: 'get',
      dcqlQuery: expect.objectContaining({ credentials: expect.any(Array) }),
      trustedIssuers: null,
      redirectUri: null,
      responseCodeSha256: null,
      expectedOrigins: null,
      clientId: expect.stringMatching(/^decentralized_identifier:did:key:/),
      authorizationRequestUri: expect.stringMatching(/^openid4vp:\/\/\?client_id=/),
      createdAt: expect.any(String),
      expiresAt: expect.any(String),
      endedAt: null,
      refusedAnswers: 0,
    });
    expect(listed.at(-1)).toEqual(view.body);
  });

  it('deletes a request (204), after which it is gone', async () => {
    const request = await created();
    const path = `${base}/${request.id}`;
    const deleted = await service.request(`${path}/delete`, {
      method: 'POST',
      as: 'demo',
      headers: { 'x-tenant-id': 'demo' },
    });
    expect(deleted.status).toBe(204);
    expect(await stored(request.id)).toBeUndefined();
    expectProblem(await read(path), 404, 'PRESENTATION_REQUEST_NOT_FOUND', path);
    const again = await service.request(`${path}/delete`, {
      method: 'POST',
      headers: { 'x-tenant-id': 'demo' },
    });
    expectProblem(again, 404, 'PRESENTATION_REQUEST_NOT_FOUND', `${path}/delete`);
    expect(
      lines.some((line) => line.includes('oid4vp.request.delete') && line.includes(request.id)),
    ).toBe(true);
  });

  it('draws the pending request’s link as SVG and PNG QR codes', async () => {
    const request = await created();
    const token = await service.tokenFor('admin');
    for (const [format, type] of [
      ['svg', 'image/svg+xml'],
      ['png', 'image/png'],
    ] as const) {
      const response = await fetch(`${service.url}${base}/${request.id}/qr.${format}`, {
        headers: { authorization: `Bearer ${token}`, 'x-tenant-id': 'demo' },
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toContain(type);
      expect(response.headers.get('cache-control')).toBe('no-store');
      const bytes = Buffer.from(await response.arrayBuffer());
      if (format === 'png') {
        expect(bytes.subarray(0, 8)).toEqual(
          Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
        );
        expect(pngShowsLink(bytes, request.authorizationRequestUri)).toBe(true);
      } else {
        expect(bytes.toString('utf8')).toMatch(
          /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[\s\S]*<\/svg>\s*$/,
        );
      }
    }
  });

  it('reads a pending request past its time as expired; the job marks it and ends it at its time', async () => {
    const request = await created({ expiresInSeconds: 60 });
    const path = `${base}/${request.id}`;
    offset = 61_000;
    const view = await read(path);
    expect(view.body).toMatchObject({ status: 'expired', endedAt: null });
    expect(view.body).not.toHaveProperty('authorizationRequestUri');
    expect((await stored(request.id)).status).toBe('pending');
    expectProblem(
      await read(`${path}/qr.svg`),
      409,
      'PRESENTATION_REQUEST_NOT_PENDING',
      `${path}/qr.svg`,
    );
    expectProblem(
      await read(`${path}/qr.png`),
      409,
      'PRESENTATION_REQUEST_NOT_PENDING',
      `${path}/qr.png`,
    );

    const housekeeping = service.app.get(RequestHousekeeping);
    expect(await housekeeping.expireDue()).toBeGreaterThanOrEqual(1);
    const row = await stored(request.id);
    expect(row.status).toBe('expired');
    expect((row.ended_at as Date).toISOString()).toBe(request.expiresAt);
    expect(await housekeeping.expireDue()).toBe(0);
    offset = 0;
    expect((await read(path)).body).toMatchObject({
      status: 'expired',
      endedAt: request.expiresAt,
    });
  });

  it('shows a verified request’s disclosed claims while kept; the retention job erases them, the outcome stays', async () => {
    const vault = service.app.get(KeyVault);
    const verified = await created();
    const failed = await created();
    const recent = await created();
    const presented = {
      alumni: [
        {
          format: 'dc+sd-jwt',
          issuer: 'https://issuer.example',
          vct,
          holderKeyThumbprint: 'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs',
          status: 'valid',
        },
      ],
    };
    const claims = { alumni: [{ given_name: 'Alice', alumni_of: 'Globex Academy' }] };
    const conclude = (id: string, endedAt: string) =>
      queryDatabase(
        service.databaseUrl,
        `UPDATE oid4vp_request SET status = 'verified', presented = $2, claims_sealed = $3,
                claims_master_key_id = $4, ended_at = ${endedAt} WHERE id = $1`,
        [
          id,
          JSON.stringify(presented),
          vault.seal('demo', Buffer.from(JSON.stringify(claims)), disclosedClaimsPurpose),
          vault.masterKeyId,
        ],
      );
    await conclude(verified.id, `now() - interval '86401 seconds'`);
    await conclude(recent.id, `now() - interval '1 hour'`);
    await queryDatabase(
      service.databaseUrl,
      `UPDATE oid4vp_request SET status = 'failed', outcome_code = 'nonce_mismatch',
              outcome_reason = 'The key binding JWT names another nonce.', ended_at = now()
        WHERE id = $1`,
      [failed.id],
    );

    const before = await read(`${base}/${verified.id}`);
    expect(before.body).toMatchObject({
      status: 'verified',
      endedAt: expect.any(String),
      presented: { alumni: [{ ...presented.alumni[0], claims: claims.alumni[0] }] },
    });
    expect(before.body).not.toHaveProperty('authorizationRequestUri');
    expect(before.body).not.toHaveProperty('claimsErasedAt');
    const failure = await read(`${base}/${failed.id}`);
    expect(failure.body).toMatchObject({
      status: 'failed',
      outcome: { code: 'nonce_mismatch', reason: 'The key binding JWT names another nonce.' },
    });
    expect(failure.body).not.toHaveProperty('presented');
    expectProblem(
      await read(`${base}/${verified.id}/qr.svg`),
      409,
      'PRESENTATION_REQUEST_NOT_PENDING',
      `${base}/${verified.id}/qr.svg`,
    );

    expect(await service.app.get(RequestHousekeeping).eraseClaims()).toBeGreaterThanOrEqual(1);
    const row = await stored(verified.id);
    expect(row).toMatchObject({
      status: 'verified',
      claims_sealed: null,
      claims_master_key_id: null,
    });
    expect(row.claims_erased_at).toEqual(expect.any(Date));
    const after = await read(`${base}/${verified.id}`);
    expect(after.body).toMatchObject({
      status: 'verified',
      presented: { alumni: [presented.alumni[0]] },
      claimsErasedAt: expect.any(String),
    });
    expect(JSON.stringify(after.body)).not.toContain('Alice');
    // Claims still within the retention time stay.
    expect((await stored(recent.id)).claims_sealed).not.toBeNull();
    expect(JSON.stringify((await read(`${base}/${recent.id}`)).body)).toContain('Alice');
    expect(lines.join('\n')).not.toContain('Alice');
  });

  it('answers the same request to a repeated Idempotency-Key', async () => {
    const headers = { 'x-tenant-id': 'demo', 'idempotency-key': 'vp-request-once-1' };
    const first = await service.request<Json>(base, {
      method: 'POST',
      headers,
      body: { dcqlQuery },
    });
    const second = await service.request<Json>(base, {
      method: 'POST',
      headers,
      body: { dcqlQuery },
    });
    expect(first.status).toBe(201);
    expect(second.body).toEqual(first.body);
  });

  it('creates a request from the OpenAPI examples as they are (Swagger’s Try it out)', async () => {
    interface Operation {
      requestBody: { content: Record<string, { examples: Record<string, { value: Json }> }> };
    }
    const document = (await service.request<Json>('/ctrl/v3/api-docs', { as: 'anonymous' }))
      .body as { paths: Record<string, Record<string, Operation>> };
    const examples = Object.values(
      document.paths[base].post.requestBody.content['application/json'].examples,
    );
    expect(examples.length).toBeGreaterThanOrEqual(2);
    for (const example of examples) expect((await create(example.value)).status).toBe(201);
  });

  it('keeps at most 1000 pending requests per tenant: one more is 422 and nothing is added', async () => {
    await queryDatabase(
      service.databaseUrl,
      `INSERT INTO oid4vp_request (id, tenant_id, status, dcql_query, response_mode, request_uri_method,
         client_id, nonce, state, reference_hash, secrets_sealed, expires_at)
       SELECT gen_random_uuid(), 'full', 'pending', '{}', 'direct_post', 'get', 'x', 'n', 's',
              decode(md5('reference' || i), 'hex'), '\\x00', now() + interval '1 hour'
         FROM generate_series(1, 1000) AS i`,
    );
    const before = await requestRows();
    expectProblem(
      await create({ dcqlQuery }, 'full'),
      422,
      'PRESENTATION_REQUESTS_LIMIT_REACHED',
      base,
    );
    expect(await requestRows()).toBe(before);
    // Expired ones do not count.
    await queryDatabase(
      service.databaseUrl,
      `UPDATE oid4vp_request SET expires_at = now() - interval '1 second'
        WHERE id IN (SELECT id FROM oid4vp_request WHERE tenant_id = 'full' LIMIT 1)`,
    );
    expect((await create({ dcqlQuery }, 'full')).status).toBe(201);
  });
});
