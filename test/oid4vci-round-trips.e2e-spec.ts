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
 * (docs/performance.md). Counts, never times.
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

  /** Within the budget, or every statement sent, one line each, for the failure's message. */
  const withinBudget = (sent: string[], budget: number) =>
    sent.length <= budget
      ? 'within budget'
      : `${sent.length} statements:\n${sent.map((text) => `  ${text.slice(0, 100)}`).join('\n')}`;

  beforeAll(async () => {
    // A tenant's first issue certifies its key and opens its status list: not what a wallet meets.
    const first = await credentialRequest('Diploma', { given_name: 'Erika' }, 1);
    expect(first.result.status).toBe(200);
  });

  it.each([
    // The token's offer with the certificate, then BEGIN, the offer, nonce and key, the record, COMMIT.
    ['an SD-JWT VC', 'Diploma', { given_name: 'Erika' }, 1, 5],
    ['a batch of two SD-JWT VCs', 'Diploma', { given_name: 'Erika' }, 2, 6],
    // No chain; the DID's key read in the transaction.
    ['a Data Integrity VC', 'Alumni', { alumniOf: 'University of Examples' }, 1, 6],
  ] as const)('issues %s within its round trips', async (_, id, claims, batch, budget) => {
    const { result, statements: sent } = await credentialRequest(id, claims, batch);
    expect(result.status).toBe(200);
    expect(result.body.credentials).toHaveLength(batch);
    expect(withinBudget(sent, budget)).toBe('within budget');
  });
});
