import { createPrivateKey, randomUUID, sign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { contractContext, tenants, type Case, type ContractFixtures } from './contract/context.js';
import { certificateCases } from './contract/certificates.cases.js';
import { credentialCases } from './contract/credentials.cases.js';
import { didCases } from './contract/did.cases.js';
import { healthCases } from './contract/health.cases.js';
import { idempotencyCases } from './contract/idempotency.cases.js';
import { loginProviderCases } from './contract/login-provider.cases.js';
import { oid4vciCases } from './contract/oid4vci.cases.js';
import { oid4vciOfferCases } from './contract/oid4vci-offers.cases.js';
import { oid4vpRequestCases } from './contract/oid4vp-requests.cases.js';
import { oid4vpDcApiCases } from './contract/oid4vp-dc-api.cases.js';
import { tenantCases } from './contract/tenants.cases.js';
import { trustAnchorCases } from './contract/trust-anchors.cases.js';
import { walletProviderCases } from './contract/wallet-providers.cases.js';
import { trustedIssuerCases } from './contract/trusted-issuers.cases.js';
import { webhookCases } from './contract/webhooks.cases.js';
import { OpenApiContract, type OpenApiDocument } from './support/openapi-contract.js';
import {
  call,
  startTestService,
  type ApiResponse,
  type TestService,
} from './support/test-service.js';

/**
 * Contract test: every endpoint is called over real HTTP, on its success paths and its error
 * paths, and every real answer is checked against the OpenAPI document the service serves: the status is
 * one the operation documents, the content type is documented for that status, and the body is valid
 * against the schema for it (with no undocumented fields). Finally, every documented answer must have been
 * seen, except 500 and 503, which need a broken service.
 *
 * Each feature's cases are in test/contract/<feature>.cases.ts; this runner sends them in the order of
 * this list (later cases may rely on what earlier ones changed).
 */
const features = [
  tenantCases,
  didCases,
  credentialCases,
  webhookCases,
  trustedIssuerCases,
  trustAnchorCases,
  walletProviderCases,
  certificateCases,
  oid4vciCases,
  oid4vciOfferCases,
  loginProviderCases,
  oid4vpRequestCases,
  oid4vpDcApiCases,
  idempotencyCases,
  healthCases,
];

describe('The API against its OpenAPI document', () => {
  const fixtures: ContractFixtures = {};
  const context = contractContext(fixtures);
  let service: TestService;
  let contract: OpenApiContract;

  beforeAll(async () => {
    // The login provider's cases run a discovery server on loopback over http.
    service = fixtures.service = await startTestService({
      env: { STATUS_LIST_ALLOW_PRIVATE_TARGETS: 'true' },
    });
    const document = await call<OpenApiDocument>(service.url, '/ctrl/v3/api-docs');
    contract = new OpenApiContract(document.body);
    for (const [id, label] of [
      ['acme', 'ACME Corp'],
      ['demo', 'Demo'],
      ['other', 'Other Org'],
      ['to-update', 'To update'],
      ['to-delete', 'To delete'],
    ]) {
      expect((await context.post(`${tenants}/create`, { query: { id, label } })).status).toBe(201);
    }
    fixtures.noRoleToken = await forgeTokenWithoutRoles(service);
  });

  afterAll(async () => {
    await service.close();
  });

  const cases: Case[] = features.flatMap((feature) => feature(context));

  it.each(cases)('$operationId answers $status as documented when $when', async (testCase) => {
    const response = await testCase.send();
    expect({ status: response.status, text: response.text.slice(0, 500) }).toMatchObject({
      status: testCase.status,
    });
    expect(contract.violations(testCase.operationId, response)).toEqual([]);
  });

  it('has now seen every answer the document promises, except 429, 500 and 503 (rate-limits.e2e-spec.ts sees 429)', () => {
    expect(contract.unseen((status) => ['429', '500', '503'].includes(status))).toEqual([]);
  });

  describe('the contract check itself', () => {
    it('refuses a status the operation does not document', () => {
      const response = fakeResponse(418, 'application/problem+json', {});
      expect(contract.violations('getTenant', response)).toEqual([
        expect.stringContaining('getTenant answered 418, which it does not document'),
      ]);
    });

    it('refuses an undocumented content type, a missing field and an undocumented field', () => {
      expect(contract.violations('getTenant', fakeResponse(200, 'text/html', {}))).toEqual([
        expect.stringContaining('content type text/html is not documented'),
      ]);
      const tenantWithout = {
        id: 'a',
        label: 'A',
        imageUrl: null,
        did: 'did:key:z',
        createdAt: 'x',
      };
      expect(
        contract.violations('getTenant', fakeResponse(200, 'application/json', tenantWithout)),
      ).toEqual(
        expect.arrayContaining([
          expect.stringContaining("must have required property 'updatedAt'"),
          expect.stringContaining('must match format "date-time"'),
        ]),
      );
      const problemWithMore = {
        type: 'http://localhost/ctrl/problems/forbidden',
        title: 'Access denied',
        status: 403,
        detail: 'No.',
        instance: '/ctrl/api/v1.0/tenants',
        code: 'FORBIDDEN',
        stack: 'Error: at ...',
      };
      expect(
        contract.violations(
          'listTenants',
          fakeResponse(403, 'application/problem+json', problemWithMore),
        ),
      ).toEqual([expect.stringContaining('must NOT have additional properties')]);
    });

    it('refuses a body where the document promises none, and a missing documented header', () => {
      expect(
        contract.violations('deleteTenant', fakeResponse(204, 'application/json', {})),
      ).toEqual([expect.stringContaining('documents no body')]);
      const unauthorized = {
        type: 'http://localhost/ctrl/problems/unauthorized',
        title: 'Authentication required',
        status: 401,
        detail: 'No token.',
        instance: '/ctrl/api/v1.0/tenants',
        code: 'UNAUTHORIZED',
      };
      expect(
        contract.violations(
          'listTenants',
          fakeResponse(401, 'application/problem+json', unauthorized),
        ),
      ).toEqual([expect.stringContaining('documented header WWW-Authenticate is missing')]);
    });
  });
});

function fakeResponse(status: number, contentType: string, body: unknown): ApiResponse {
  const text = JSON.stringify(body);
  return { status, headers: new Headers({ 'content-type': contentType }), body, text };
}

/**
 * An access token exactly like the administrator's but without realm roles, signed with the embedded
 * issuer's key: the realm has no such user, and 403 for "neither role" must be shown too.
 */
async function forgeTokenWithoutRoles(service: TestService): Promise<string> {
  const adminToken = await service.tokenFor('admin');
  const [headerSegment, claimsSegment] = adminToken.split('.');
  const header = JSON.parse(Buffer.from(headerSegment, 'base64url').toString('utf8')) as object;
  const claims = JSON.parse(Buffer.from(claimsSegment, 'base64url').toString('utf8')) as {
    realm_access?: { roles: string[] };
  };
  const now = Math.floor(Date.now() / 1000);
  const forged = {
    ...claims,
    jti: `onrtro:${randomUUID()}`,
    iat: now,
    exp: now + 600,
    realm_access: { roles: ['offline_access'] },
  };
  const key = createPrivateKey(readFileSync(join(service.dataDir, 'issuer', 'signing-key.pem')));
  const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const signingInput = `${encode(header)}.${encode(forged)}`;
  const signature = sign('sha256', Buffer.from(signingInput), key).toString('base64url');
  return `${signingInput}.${signature}`;
}
