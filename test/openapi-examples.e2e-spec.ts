import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startService, type RunningService } from '../src/bootstrap/start-service.js';
import {
  operationsOf,
  type LocatedOperation,
  type OpenApiDocument,
  type Parameter,
} from './support/openapi-contract.js';
import { call, passwordGrant, type ApiResponse } from './support/test-service.js';
import {
  documentSignerExtensions,
  makeCa,
  pemChain,
  signLeaf,
  x509,
} from './support/x509-test-ca.js';
import { exampleAuthorityId } from '../src/certificates/certificate-authority.controller.js';
import { certificateExamples } from '../src/certificates/dto/certificate-examples.js';
import { loginProviderExample } from '../src/oid4vci/login-provider/dto/login-provider.dto.js';
import { startForgingProvider, type ForgingProvider } from './support/login-providers.js';

type Json = Record<string, unknown>;

/**
 * The order a newcomer would try the API in, by operationId; every operation of the document is here
 * (the first test fails on one that is not), and the tenant the walk creates is deleted last.
 */
const walk = [
  ...['createTenant', 'getTenant', 'listTenants', 'updateTenant'],
  ...['getDid', 'getDidDocument'],
  ...['issueCredential', 'listCredentials', 'getCredential', 'verifyCredential'],
  ...['verifyPresentation', 'getStatusList', 'getStatusListToken', 'publishStatusList'],
  ...['updateCredentialStatus', 'getJwtVcIssuerMetadata'],
  ...['createTrustedIssuer', 'listTrustedIssuers', 'getTrustedIssuer', 'deleteTrustedIssuer'],
  ...['createTrustAnchor', 'listTrustAnchors', 'getTrustAnchor', 'deleteTrustAnchor'],
  ...['getWalletAttestationPolicy', 'createWalletProvider', 'listWalletProviders'],
  ...['getWalletProvider', 'setWalletAttestationPolicy', 'deleteWalletProvider'],
  ...['listCertificates', 'createCertificateSigningRequest', 'importCertificate'],
  ...['issueCertificate', 'getCertificateAuthority', 'getCertificateAuthorityCrl'],
  ...['createCredentialConfiguration', 'listCredentialConfigurations'],
  ...['getCredentialConfiguration', 'updateCredentialConfiguration'],
  ...['deleteCredentialConfiguration'],
  ...['getLoginProvider', 'setLoginProvider', 'deleteLoginProvider'],
  ...['getCredentialIssuerMetadata', 'getAuthorizationServerMetadata'],
  ...['createOffer', 'listOffers', 'getOffer', 'getOfferQrSvg', 'getOfferQrPng'],
  ...['getCredentialOffer', 'withdrawOffer'],
  ...['createPresentationRequest', 'listPresentationRequests', 'getPresentationRequest'],
  ...['submitDcApiResponse'],
  ...['getPresentationRequestQrSvg', 'getPresentationRequestQrPng', 'deletePresentationRequest'],
  ...['createWebhook', 'listWebhooks', 'getWebhook', 'updateWebhook', 'rotateWebhookSecret'],
  ...['testWebhook', 'listWebhookDeliveries', 'redeliverWebhook', 'deleteWebhook'],
  ...['createAdminWebhook', 'listAdminWebhooks', 'getAdminWebhook', 'updateAdminWebhook'],
  ...['rotateAdminWebhookSecret', 'testAdminWebhook', 'listAdminWebhookDeliveries'],
  ...['redeliverAdminWebhook', 'deleteAdminWebhook'],
  ...['live', 'ready', 'deleteTenant'],
];

/**
 * The one exception to "as given" (docs/api.md, Examples): an id the service assigns at run time (a
 * credential's, a status list's, an offer's and its reference, a request's, a webhook's, a delivery's)
 * cannot be known in advance, so where an example names one, the walk sends the id that an earlier
 * example's answer gave, in a path parameter or a top-level body field; and the tenant in the path of a
 * status list or an offer reference is the one that list or offer belongs to (the demo tenant).
 */
const assignedBy: Record<
  string,
  (answer: Json) => Record<string, string> | Promise<Record<string, string>>
> = {
  issueCredential: (answer) => {
    const credential = answer.verifiableCredential as Json;
    const status = [credential.credentialStatus].flat() as { statusListCredential: string }[];
    const [, , , listId] = new URL(status[0].statusListCredential).pathname.split('/').slice(1);
    return { credentialId: credential.id as string, listId };
  },
  createTrustedIssuer: (answer) => ({ trustedIssuerId: answer.id as string }),
  createTrustAnchor: (answer) => ({ trustAnchorId: answer.id as string }),
  createWalletProvider: (answer) => ({ walletProviderId: answer.id as string }),
  // A chain for the demo tenant's key exists only once a CA signed its CSR: a test CA signs the default one.
  createCertificateSigningRequest: async (answer): Promise<Record<string, string>> => {
    const csr = answer.csr as string;
    const subject = new x509.Pkcs10CertificateRequest(csr).subject;
    if (subject === 'C=DE, CN=demo') {
      const iaca = await makeCa('Examples IACA', undefined, 'DE');
      const extensions = await documentSignerExtensions(csr);
      const signer = await signLeaf(iaca, csr, { extensions });
      return { documentSignerChain: pemChain(signer, iaca.certificate) };
    }
    // The example with names of its own asks for another host than the tenant's.
    if (subject !== 'CN=demo') return {};
    const ca = await makeCa('Examples CA');
    return { certificateChain: pemChain(await signLeaf(ca, csr), ca.certificate) };
  },
  // The document signer's CRL distribution point names the authority whose CRL the walk fetches.
  issueCertificate: (answer): Record<string, string> => {
    const leaf = new x509.X509Certificate((answer.x5c as string[])[0]);
    const points = leaf.getExtension(x509.CRLDistributionPointsExtension)?.distributionPoints ?? [];
    const uri = points[0]?.distributionPoint?.fullName?.[0]?.uniformResourceIdentifier;
    return uri === undefined ? {} : { authorityId: new URL(uri).pathname.split('/')[3] };
  },
  createOffer: (answer) => {
    const uri = new URL(answer.credentialOfferUri as string).searchParams.get(
      'credential_offer_uri',
    );
    return {
      offerId: answer.id as string,
      ...(uri === null ? {} : { reference: uri.split('/').pop()! }),
    };
  },
  // The DC API examples' last request is the one the DC API answer's example answers.
  createPresentationRequest: (answer): Record<string, string> =>
    answer.dcApiRequest === undefined
      ? { requestId: answer.id as string }
      : { dcApiRequestId: answer.id as string },
  createWebhook: (answer) => ({ webhookId: answer.id as string }),
  createAdminWebhook: (answer) => ({ webhookId: answer.id as string }),
  listWebhookDeliveries: (page) => deliveryOf(page),
  listAdminWebhookDeliveries: (page) => deliveryOf(page),
};

function deliveryOf(page: Json): Record<string, string> {
  const [first] = page.content as { id: string }[];
  return first === undefined ? {} : { deliveryId: first.id };
}

/** Which assigned id an example value stands for: the examples' placeholders, by the names above. */
const placeholders: Record<string, string> = {
  'urn:uuid:58172aac-d8ba-11ed-83dd-0b3aef56cc33': 'credentialId',
  '0b9e3c56-5c3d-4f4e-9a59-3f1d1c2b7a10': 'listId',
  '2f0c9a1e-8b7d-4c6e-9f5a-3b2c1d0e9f8a': 'trustedIssuerId',
  '5b1e7c2a-4d3f-4a6b-9c8d-7e6f5a4b3c2d': 'trustAnchorId',
  '7c2e9a41-0b3d-4f5e-8a6b-1c2d3e4f5a6b': 'walletProviderId',
  '0f8e2a53-7c1d-4c58-9a7e-2b1f3c4d5e6f': 'offerId',
  c2Vjb25kLXJhbmRvbS1yZWZlcmVuY2UtMzItYnl0ZXM: 'reference',
  '5b1d7c1e-3f0a-4a57-9c4e-8e2f1d6a7b90': 'requestId',
  '0c6f3e8a-9b2d-4f1e-8a7c-5d4b3a2f1e0d': 'dcApiRequestId',
  '6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f': 'webhookId',
  'a3c1e2d4-5b6f-4a7c-9d8e-1f2a3b4c5d6e': 'deliveryId',
  [certificateExamples.chainPem]: 'certificateChain',
  [certificateExamples.documentSignerChainPem]: 'documentSignerChain',
  [exampleAuthorityId]: 'authorityId',
  // No provider answers at the example's issuer here: one on loopback stands in for it.
  [loginProviderExample.issuer]: 'loginProviderIssuer',
};
/** Operations whose path names a tenant and a thing of the demo tenant. */
const demoTenantPaths = new Set([
  'getStatusList',
  'getStatusListToken',
  'publishStatusList',
  'getCredentialOffer',
]);

function exampleOf(parameter: Parameter): unknown {
  return parameter.example ?? parameter.schema?.example;
}

/**
 * Every example of the OpenAPI document, sent as given in a sensible order against a fresh local-mode
 * start (the demo tenant and its configurations, as a newcomer finds them), answers the status the
 * document gives for success. The rules (docs/api.md, Examples): tenant-scoped operations are sent as
 * the demo user with `x-tenant-id: demo`, the others as the administrator (public ones without a token);
 * each body example is one request; query parameters go with the first body example only (the others
 * carry the same fields in the body, and both at once must agree), except `after`, a cursor that only
 * a previous page can give; optional headers are left out (the
 * `Idempotency-Key` example is one key, which a second request may not reuse; `If-None-Match` would
 * only turn a 200 into a 304); assigned ids are substituted as `assignedBy` says.
 */
describe('The OpenAPI examples', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'agent-examples-'));
  chmodSync(dataDir, 0o755);
  let service: RunningService;
  let document: OpenApiDocument;
  let loginProvider: ForgingProvider;
  const tokens: Record<'admin' | 'demo', string> = { admin: '', demo: '' };

  beforeAll(async () => {
    service = await startService({
      env: {
        NODE_ENV: 'test',
        PORT: '0',
        METRICS_PORT: '0',
        DATA_DIR: dataDir,
        RATE_LIMIT_CALLER_PER_MINUTE: '1000000',
        RATE_LIMIT_IP_PER_MINUTE: '1000000',
      },
      logLevel: 'silent',
    });
    document = (await call<OpenApiDocument>(service.url, '/ctrl/v3/api-docs')).body;
    for (const user of ['admin', 'demo'] as const)
      tokens[user] = (await passwordGrant(service.url, user, user)).access_token;
    loginProvider = await startForgingProvider();
  }, 60_000);
  afterAll(async () => {
    await service?.close();
    await loginProvider?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('walks every operation of the document', () => {
    const ids = operationsOf(document).map(({ operation }) => operation.operationId);
    expect([...walk].sort()).toEqual([...ids].sort());
  });

  it('answers every example, in order, with its documented success status', async () => {
    const byId = new Map(operationsOf(document).map((op) => [op.operation.operationId!, op]));
    const assigned: Record<string, string> = { loginProviderIssuer: loginProvider.issuer };
    const failures: string[] = [];
    for (const operationId of walk) {
      const located = byId.get(operationId)!;
      const { operation } = located;
      const bodies = bodyExamples(located);
      for (const [index, [name, body]] of bodies.entries()) {
        const response = await send(located, body, index === 0, assigned);
        const expected = Object.keys(operation.responses).filter((status) => status < '400');
        const label = `${operationId}${name === undefined ? '' : ` (${name})`}`;
        if (!expected.includes(String(response.status))) {
          failures.push(`${label}: ${response.status} ${response.text.slice(0, 300)}`);
          continue;
        }
        const capture = assignedBy[operationId];
        if (capture !== undefined) Object.assign(assigned, await capture(response.body as Json));
      }
    }
    expect(failures).toEqual([]);
  }, 60_000);

  function bodyExamples({ operation }: LocatedOperation): [string | undefined, unknown][] {
    const media = operation.requestBody?.content['application/json'];
    if (media === undefined) return [[undefined, undefined]];
    const named = Object.entries(media.examples ?? {}).map(
      ([name, example]) => [name, example.value] as [string, unknown],
    );
    return named.length > 0 ? named : [[undefined, media.example]];
  }

  async function send(
    { method, path, operation }: LocatedOperation,
    body: unknown,
    withQuery: boolean,
    assigned: Record<string, string>,
  ): Promise<ApiResponse> {
    const substitute = (value: unknown): unknown => {
      const name = typeof value === 'string' ? placeholders[value] : undefined;
      return name === undefined ? value : (assigned[name] ?? value);
    };
    const parameters = operation.parameters ?? [];
    let url = path;
    for (const parameter of parameters.filter((p) => p.in === 'path')) {
      const value =
        parameter.name === 'tenantId' && demoTenantPaths.has(operation.operationId!)
          ? 'demo'
          : substitute(exampleOf(parameter));
      url = url.replace(`{${parameter.name}}`, encodeURIComponent(String(value)));
    }
    const query: Record<string, string> = {};
    if (withQuery)
      for (const parameter of parameters.filter((p) => p.in === 'query')) {
        const value = exampleOf(parameter);
        if (value !== undefined && parameter.name !== 'after')
          query[parameter.name] = String(substitute(value));
      }
    const security = operation.security ?? [];
    const tenantScoped = security.some((requirement) => 'tenant' in requirement);
    const headers: Record<string, string> = {};
    if (tenantScoped) {
      headers.authorization = `Bearer ${tokens.demo}`;
      headers['x-tenant-id'] = 'demo';
    } else if (security.length > 0) headers.authorization = `Bearer ${tokens.admin}`;
    const sent =
      body !== null && typeof body === 'object' && !Array.isArray(body)
        ? Object.fromEntries(Object.entries(body).map(([key, value]) => [key, substitute(value)]))
        : body;
    return call(service.url, url, { method: method.toUpperCase(), headers, query, body: sent });
  }
});
