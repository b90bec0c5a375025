import { isPlannedPerCall } from '../src/database/bounded-client.js';
import { startTestService, type TestService } from './support/test-service.js';
import { logStatements, type StatementLog } from './support/statement-log.js';
import { keyProof, walletKey } from './support/oid4vci-wallet.js';

type Json = Record<string, unknown>;

const diploma = {
  id: 'Diploma',
  format: 'dc+sd-jwt',
  vct: 'https://university.example/credentials/diploma',
  claims: [{ path: ['given_name'], mandatory: true }],
};
const alumni = {
  id: 'Alumni',
  format: 'ldp_vc',
  credentialDefinition: {
    '@context': [
      'https://www.w3.org/ns/credentials/v2',
      'https://www.w3.org/ns/credentials/examples/v2',
    ],
    type: ['VerifiableCredential', 'AlumniCredential'],
  },
  claims: [{ path: ['credentialSubject', 'alumniOf'], mandatory: true }],
};

/**
 * How many statements the credential endpoint (OpenID4VCI 1.0 §8) sends PostgreSQL for one request,
 * counted on the service's pool: each is a round trip, and round trips bound the endpoint's throughput
 * (docs/performance.md). Counts, never times; and what the one statement keeps across two instances:
 * an offer's credential issued once, a nonce spent once.
 */
describe('OpenID4VCI credential endpoint round trips', () => {
  let service: TestService;
  let statements: StatementLog;
  const base = () => `${service.publicBaseUrl}/ctrl/oid4vci/univ`;

  beforeAll(async () => {
    service = await startTestService();
    await service.client().createTenant({ id: 'univ', label: 'University of Examples' });
    for (const configuration of [diploma, alumni]) {
      const made = await service.request(
        '/ctrl/api/v1.0/oid4vci/credential-configurations/create',
        { method: 'POST', headers: { 'x-tenant-id': 'univ' }, body: configuration },
      );
      expect(made.status).toBe(201);
    }
    statements = logStatements(service.dataSource, service.app.getHttpServer());
  });
  afterAll(async () => {
    statements.restore();
    await service.close();
  });

  /** A new offer redeemed up to the credential request: the access token and a fresh nonce. */
  async function readyToRequest(configurationId: string, claims: Json) {
    const made = await service.request<Json>('/ctrl/api/v1.0/oid4vci/offers', {
      method: 'POST',
      headers: { 'x-tenant-id': 'univ' },
      body: { credentialConfigurationId: configurationId, claims },
    });
    expect(made.status).toBe(201);
    const grants = (made.body.credentialOffer as { grants: Record<string, Json> }).grants;
    const code = grants['urn:ietf:params:oauth:grant-type:pre-authorized_code'][
      'pre-authorized_code'
    ] as string;
    const token = (await (
      await fetch(`${base()}/token`, {
        method: 'POST',
        body: new URLSearchParams({
          grant_type: 'urn:ietf:params:oauth:grant-type:pre-authorized_code',
          'pre-authorized_code': code,
        }),
      })
    ).json()) as Json;
    const nonce = (await (await fetch(`${base()}/nonce`, { method: 'POST' })).json()) as Json;
    return { accessToken: token.access_token as string, nonce: nonce.c_nonce as string };
  }

  async function credentialRequest(configurationId: string, claims: Json, batch: number) {
    const { accessToken, nonce } = await readyToRequest(configurationId, claims);
    const keys = await Promise.all(
      Array.from({ length: batch }, () =>
        walletKey(configurationId === 'Alumni' ? 'EdDSA' : 'ES256'),
      ),
    );
    const jwts = await Promise.all(keys.map((key) => keyProof(key, { aud: base(), nonce })));
    const path = '/ctrl/oid4vci/univ/credential';
    return statements.during(path, async () => {
      const response = await fetch(`${base()}/credential`, {
        method: 'POST',
        headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          credential_configuration_id: configurationId,
          proofs: { jwt: jwts },
        }),
      });
      return { status: response.status, body: (await response.json()) as Json };
    });
  }

  /**
   * Within the budget and each planned once per connection (none the pool plans at each call), or every
   * statement sent, one line each, for the failure's message.
   */
  const withinBudget = (sent: string[], budget: number) =>
    sent.length <= budget && !sent.some(isPlannedPerCall)
      ? 'within budget'
      : `${sent.length} statements:\n${sent.map((text) => `  ${isPlannedPerCall(text) ? '(planned at each call) ' : ''}${text.slice(0, 100)}`).join('\n')}`;

  beforeAll(async () => {
    // A tenant's first issue certifies its key and opens its status list: not what a wallet meets.
    const first = await credentialRequest('Diploma', { given_name: 'Erika' }, 1);
    expect(first.result.status).toBe(200);
  });

  it.each([
    // The token's offer with the certificate, then the nonce, offer, records and key in one statement.
    ['an SD-JWT VC', 'Diploma', { given_name: 'Erika' }, 1, 2],
    ['a batch of two SD-JWT VCs', 'Diploma', { given_name: 'Erika' }, 2, 2],
    // No chain; the DID's key read after the statement.
    ['a Data Integrity VC', 'Alumni', { alumniOf: 'University of Examples' }, 1, 3],
  ] as const)('issues %s within its round trips', async (_, id, claims, batch, budget) => {
    const { result, statements: sent } = await credentialRequest(id, claims, batch);
    expect(result.status).toBe(200);
    expect(result.body.credentials).toHaveLength(batch);
    expect(withinBudget(sent, budget)).toBe('within budget');
  });

  it('creates an offer in three: the tenant, its configuration, the insert within the cap', async () => {
    const path = '/ctrl/api/v1.0/oid4vci/offers';
    const { result, statements: sent } = await statements.during(path, () =>
      service.request<Json>(path, {
        method: 'POST',
        headers: { 'x-tenant-id': 'univ' },
        body: { credentialConfigurationId: 'Diploma', claims: { given_name: 'Erika' } },
      }),
    );
    expect(result.status).toBe(201);
    expect(withinBudget(sent, 3)).toBe('within budget');
  });

  describe('two instances on one database', () => {
    let other: TestService;

    beforeAll(async () => {
      other = await startTestService({
        env: { DATABASE_URL: service.databaseUrl, AGENT_MASTER_KEY: service.masterKey },
      });
    });
    afterAll(async () => {
      await other.close();
    });

    /** A credential request to `instance`, its proof for that instance's issuer. */
    async function post(instance: TestService, accessToken: string, nonce: string) {
      const issuer = `${instance.publicBaseUrl}/ctrl/oid4vci/univ`;
      const jwt = await keyProof(await walletKey('ES256'), { aud: issuer, nonce });
      const response = await fetch(`${issuer}/credential`, {
        method: 'POST',
        headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ credential_configuration_id: 'Diploma', proofs: { jwt: [jwt] } }),
      });
      return { status: response.status, body: (await response.json()) as Json };
    }

    const recordsOf = async (accessToken: string) =>
      (
        await service.dataSource.query<{ count: number }[]>(
          `SELECT count(*)::int AS count FROM issued_credential c
             JOIN oid4vci_offer o ON o.id = c.offer_id
            WHERE o.access_token_hash = sha256($1::bytea)`,
          [Buffer.from(accessToken)],
        )
      )[0].count;

    it('issues an offer’s credential once when both take it at the same time', async () => {
      const { accessToken, nonce } = await readyToRequest('Diploma', { given_name: 'Erika' });
      const second = (await readyToRequest('Diploma', { given_name: 'Max' })).nonce;
      const answers = await Promise.all([
        post(service, accessToken, nonce),
        post(other, accessToken, second),
      ]);
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 401]);
      expect(answers.find((answer) => answer.status === 401)!.body.error).toBe('invalid_token');
      expect(await recordsOf(accessToken)).toBe(1);
    });

    it('spends a nonce once when both spend it at the same time, for two offers', async () => {
      const first = await readyToRequest('Diploma', { given_name: 'Erika' });
      const second = await readyToRequest('Diploma', { given_name: 'Max' });
      const answers = await Promise.all([
        post(service, first.accessToken, first.nonce),
        post(other, second.accessToken, first.nonce),
      ]);
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 400]);
      expect(answers.find((answer) => answer.status === 400)!.body.error).toBe('invalid_nonce');
      // The loser's offer was not taken: its token still serves a request with a nonce nobody spent
      // (the second offer's: the first one's went to whichever request won).
      const [won, lost] = answers[0].status === 200 ? [first, second] : [second, first];
      expect((await recordsOf(won.accessToken)) + (await recordsOf(lost.accessToken))).toBe(1);
      expect((await post(service, lost.accessToken, second.nonce)).status).toBe(200);
    });
  });
});
