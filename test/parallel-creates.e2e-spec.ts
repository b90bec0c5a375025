import { setImmediate as setImmediatePromise } from 'node:timers/promises';
import pg from 'pg';
import { queryDatabase } from './support/database.js';
import { sdJwtBadge } from './support/oid4vci-fixtures.js';
import { expectProblem } from './support/problems.js';
import { startTestService, type ApiResponse, type TestService } from './support/test-service.js';

type Json = Record<string, unknown>;

const offersPath = '/ctrl/api/v1.0/oid4vci/offers';
const requestsPath = '/ctrl/api/v1.0/oid4vp/requests';
const trustedIssuersPath = '/ctrl/api/v1.0/trusted-issuers/create';
const claims = { given_name: 'Erika', address: { locality: 'Berlin' } };
const dcqlQuery = {
  credentials: [
    {
      id: 'alumni',
      format: 'dc+sd-jwt',
      meta: { vct_values: ['https://globex.example/credentials/alumni'] },
      claims: [{ path: ['given_name'] }],
    },
  ],
};

/**
 * Bursts of creates in one tenant (a class of students offered their credentials at once): every
 * create under a tenant's cap succeeds, none waits on the tenant's row long enough to answer 503, and
 * at the cap exactly the free places are taken (docs/architecture.md, Per-tenant caps).
 */
describe('parallel creates in one tenant', () => {
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService();
    for (const id of ['class', 'offers-full', 'requests-full', 'issuers-full', 'shared']) {
      await service.client().createTenant({ id, label: id });
    }
    for (const id of ['doomed-offers', 'doomed-requests', 'doomed-issuers']) {
      await service.client().createTenant({ id, label: id });
    }
    for (const id of ['class', 'offers-full', 'shared', 'doomed-offers']) {
      await service.client().createCredentialConfiguration(id, sdJwtBadge);
    }
  });
  afterAll(() => service.close());

  const post = (path: string, tenantId: string, body: Json) =>
    service.request<Json>(path, { method: 'POST', headers: { 'x-tenant-id': tenantId }, body });
  const burst = (count: number, send: (index: number) => Promise<ApiResponse<Json>>) =>
    Promise.all(Array.from({ length: count }, (_, index) => send(index)));
  const statusesOf = (answers: { status: number }[]) =>
    answers.map((answer) => answer.status).sort((a, b) => a - b);
  const countRows = async (table: string, tenantId: string) => {
    const [{ count }] = await queryDatabase<{ count: number }>(
      service.databaseUrl,
      `SELECT count(*)::int AS count FROM ${table} WHERE tenant_id = $1`,
      [tenantId],
    );
    return count;
  };

  it('creates 100 offers sent at once, every one', async () => {
    await service.tokenFor('admin');
    const answers = await burst(100, () =>
      post(offersPath, 'class', { credentialConfigurationId: sdJwtBadge.id, claims }),
    );

    expect(statusesOf(answers)).toEqual(Array.from({ length: 100 }, () => 201));
    expect(await countRows('oid4vci_offer', 'class')).toBe(100);
  }, 120_000);

  it('creates 100 presentation requests sent at once, every one', async () => {
    const answers = await burst(100, () => post(requestsPath, 'class', { dcqlQuery }));

    expect(statusesOf(answers)).toEqual(Array.from({ length: 100 }, () => 201));
    expect(await countRows('oid4vp_request', 'class')).toBe(100);
  }, 120_000);

  it('adds 100 trusted issuers sent at once, every one', async () => {
    const answers = await burst(100, (index) =>
      post(trustedIssuersPath, 'class', { issuer: `did:example:class-${index}` }),
    );

    expect(statusesOf(answers)).toEqual(Array.from({ length: 100 }, () => 201));
    expect(await countRows('trusted_issuer', 'class')).toBe(100);
  }, 120_000);

  /** A transaction of its own on the test's connection, until `end` is called. */
  async function openTransaction(statement: string, values: unknown[]) {
    const client = new pg.Client({ connectionString: service.databaseUrl });
    await client.connect();
    await client.query('BEGIN');
    await client.query(statement, values);
    return {
      client,
      end: async (how: 'COMMIT' | 'ROLLBACK') => {
        await client.query(how);
        await client.end();
      },
    };
  }

  async function someoneWaitsForALock(): Promise<boolean> {
    const [{ waiting }] = await queryDatabase<{ waiting: number }>(
      service.databaseUrl,
      `SELECT count(*)::int AS waiting FROM pg_stat_activity
        WHERE datname = current_database() AND wait_event_type = 'Lock'`,
    );
    return waiting > 0;
  }

  it('creates while another transaction shares the tenant row, as every insert of its rows does', async () => {
    // Each insert of a row naming the tenant takes this lock for its foreign key, until it commits.
    const sharer = await openTransaction('SELECT 1 FROM tenant WHERE id = $1 FOR KEY SHARE', [
      'shared',
    ]);
    try {
      const answers = await Promise.all([
        burst(10, () =>
          post(offersPath, 'shared', { credentialConfigurationId: sdJwtBadge.id, claims }),
        ),
        burst(10, () => post(requestsPath, 'shared', { dcqlQuery })),
        burst(10, (index) =>
          post(trustedIssuersPath, 'shared', { issuer: `did:example:shared-${index}` }),
        ),
      ]);

      expect(statusesOf(answers.flat())).toEqual(Array.from({ length: 30 }, () => 201));
    } finally {
      await sharer.end('COMMIT');
    }
  }, 120_000);

  it.each([
    ['an offer', 'doomed-offers', offersPath, 'oid4vci_offer'],
    ['a presentation request', 'doomed-requests', requestsPath, 'oid4vp_request'],
    ['a trusted issuer', 'doomed-issuers', trustedIssuersPath, 'trusted_issuer'],
  ])(
    'answers 404 and stores nothing when the tenant is deleted while %s is created',
    async (_, tenantId, path, table) => {
      const deletion = await openTransaction('DELETE FROM tenant WHERE id = $1', [tenantId]);
      let created: Promise<ApiResponse<Json>> | undefined;
      try {
        const body =
          path === offersPath
            ? { credentialConfigurationId: sdJwtBadge.id, claims }
            : path === requestsPath
              ? { dcqlQuery }
              : { issuer: 'did:example:doomed' };
        let answered = false;
        created = post(path, tenantId, body).finally(() => {
          answered = true;
        });
        // Until the create passed the tenant check and waits for the deletion at its foreign key.
        while (!answered && !(await someoneWaitsForALock())) await setImmediatePromise();
      } finally {
        await deletion.end('COMMIT');
      }
      expectProblem(await created, 404, 'TENANT_NOT_FOUND', path);
      expect(await countRows(table, tenantId)).toBe(0);
    },
  );

  it('takes exactly the last 5 places of the open offers cap in a burst of 30; the rest are 422', async () => {
    await queryDatabase(
      service.databaseUrl,
      `INSERT INTO oid4vci_offer (id, tenant_id, configuration_id, configuration, status, by_value,
         secrets_sealed, pre_authorized_code_hash, reference_hash, expires_at)
       SELECT gen_random_uuid(), 'offers-full', $1, '{}', 'offered', false, '\\x00',
              sha256(('code' || i)::bytea), sha256(('reference' || i)::bytea),
              now() + interval '1 hour'
         FROM generate_series(1, 995) AS i`,
      [sdJwtBadge.id],
    );
    const answers = await burst(30, () =>
      post(offersPath, 'offers-full', { credentialConfigurationId: sdJwtBadge.id, claims }),
    );

    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(5);
    for (const refused of answers.filter((answer) => answer.status !== 201)) {
      expectProblem(refused, 422, 'OFFERS_LIMIT_REACHED', offersPath);
    }
    expect(await countRows('oid4vci_offer', 'offers-full')).toBe(1000);
  }, 120_000);

  it('takes exactly the last 5 places of the pending requests cap in a burst of 30; the rest are 422', async () => {
    await queryDatabase(
      service.databaseUrl,
      `INSERT INTO oid4vp_request (id, tenant_id, status, dcql_query, response_mode, request_uri_method,
         client_id, nonce, state, reference_hash, secrets_sealed, expires_at)
       SELECT gen_random_uuid(), 'requests-full', 'pending', '{}', 'direct_post', 'get', 'x', 'n',
              's', sha256(('reference' || i)::bytea), '\\x00', now() + interval '1 hour'
         FROM generate_series(1, 995) AS i`,
    );
    const answers = await burst(30, () => post(requestsPath, 'requests-full', { dcqlQuery }));

    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(5);
    for (const refused of answers.filter((answer) => answer.status !== 201)) {
      expectProblem(refused, 422, 'PRESENTATION_REQUESTS_LIMIT_REACHED', requestsPath);
    }
    expect(await countRows('oid4vp_request', 'requests-full')).toBe(1000);
  }, 120_000);

  it('takes exactly the last 5 places of the trusted issuers cap in a burst of 30; the rest are 422', async () => {
    await queryDatabase(
      service.databaseUrl,
      `INSERT INTO trusted_issuer (id, tenant_id, issuer)
       SELECT gen_random_uuid(), 'issuers-full', 'did:example:filled-' || i
         FROM generate_series(1, 95) AS i`,
    );
    const answers = await burst(30, (index) =>
      post(trustedIssuersPath, 'issuers-full', { issuer: `did:example:burst-${index}` }),
    );

    expect(answers.filter((answer) => answer.status === 201)).toHaveLength(5);
    for (const refused of answers.filter((answer) => answer.status !== 201)) {
      expectProblem(refused, 422, 'TRUSTED_ISSUERS_LIMIT_REACHED', trustedIssuersPath);
    }
    expect(await countRows('trusted_issuer', 'issuers-full')).toBe(100);
  }, 120_000);
});
