import { queryDatabase } from '../support/database.js';
import { makeCa, pemChain, signLeaf } from '../support/x509-test-ca.js';
import type { ApiRequest, ApiResponse } from '../support/test-service.js';
import { credential, tenants, type Case, type ContractContext } from './context.js';
import { offerClaims, offeredConfiguration } from './oid4vci-offers.cases.js';
import { presentationQuery } from './oid4vp-requests.cases.js';

/**
 * The answers `Idempotency-Key` adds (api.md, Retrying safely): a malformed key 400, the key with another
 * request 422, and 409 while the first request with the key runs (its row is set back to running).
 */
export function idempotencyCases(context: ContractContext): Case[] {
  const { post, tenantHeader } = context;
  const subscription = { url: 'https://93.184.215.14/agent-events' };
  const subscriptionOf = async (webhooks: string, owner: ApiRequest) =>
    ((await post(`${webhooks}/create`, { ...owner, body: subscription })).body as { id: string })
      .id;
  /** Each operation, sent with a key, as one request (variant 0) or another (variant 1). */
  const operations: [string, (key: string, variant: number) => Promise<ApiResponse>][] = [
    [
      'createTenant',
      (key, variant) =>
        post(`${tenants}/create`, {
          headers: { 'Idempotency-Key': key },
          query: { id: `keyed-${key}`, label: `Variant ${variant}` },
        }),
    ],
    [
      'createTrustedIssuer',
      (key, variant) =>
        post('/ctrl/api/v1.0/trusted-issuers/create', {
          headers: { 'x-tenant-id': 'acme', 'Idempotency-Key': key },
          body: { issuer: `did:example:keyed-${key}`, description: `Variant ${variant}` },
        }),
    ],
    [
      'createOffer',
      (key, variant) =>
        post('/ctrl/api/v1.0/oid4vci/offers', {
          headers: { 'x-tenant-id': 'acme', 'Idempotency-Key': key },
          body: {
            credentialConfigurationId: offeredConfiguration,
            claims: offerClaims,
            expiresInSeconds: 600 + variant,
          },
        }),
    ],
    [
      'createPresentationRequest',
      (key, variant) =>
        post('/ctrl/api/v1.0/oid4vp/requests', {
          headers: { 'x-tenant-id': 'acme', 'Idempotency-Key': key },
          body: { dcqlQuery: presentationQuery, expiresInSeconds: 300 + variant },
        }),
    ],
    [
      'issueCredential',
      (key, variant) =>
        post('/ctrl/api/v1.0/credentials/issue', {
          headers: { 'x-tenant-id': 'acme', 'Idempotency-Key': key },
          body: { credential: { ...credential, name: `Variant ${variant}` } },
        }),
    ],
  ];
  for (const admin of [false, true]) {
    const webhooks = admin ? '/ctrl/api/v1.0/admin/webhooks' : '/ctrl/api/v1.0/webhooks';
    const owner: ApiRequest = admin ? {} : tenantHeader('acme');
    const name = (operationId: string) =>
      admin ? operationId.replace('Webhook', 'AdminWebhook') : operationId;
    const keyed = (key: string) => ({ headers: { ...owner.headers, 'Idempotency-Key': key } });
    const ids = new Map<number, Promise<string>>();
    const idOf = (variant: number) => {
      if (!ids.has(variant)) ids.set(variant, subscriptionOf(webhooks, owner));
      return ids.get(variant)!;
    };
    operations.push(
      [
        name('createWebhook'),
        (key, variant) =>
          post(`${webhooks}/create`, {
            ...keyed(key),
            body: { ...subscription, description: `Variant ${variant}` },
          }),
      ],
      [
        name('rotateWebhookSecret'),
        async (key, variant) =>
          post(`${webhooks}/${await idOf(variant)}/rotate-secret`, keyed(key)),
      ],
      [
        name('testWebhook'),
        async (key, variant) => post(`${webhooks}/${await idOf(variant)}/test`, keyed(key)),
      ],
    );
  }
  // Two chains a test CA signed for acme's key: one request and another.
  const chains = new Map<number, Promise<string>>();
  const chainOf = (variant: number) => {
    if (!chains.has(variant)) {
      chains.set(
        variant,
        (async () => {
          const ca = await makeCa(`Idempotency CA ${variant}`);
          const request = await post('/ctrl/api/v1.0/certificates/csr', {
            headers: { 'x-tenant-id': 'acme' },
            body: {},
          });
          const leaf = await signLeaf(ca, (request.body as { csr: string }).csr);
          return pemChain(leaf, ca.certificate);
        })(),
      );
    }
    return chains.get(variant)!;
  };
  operations.push([
    'importCertificate',
    async (key, variant) =>
      post('/ctrl/api/v1.0/certificates/import', {
        headers: { 'x-tenant-id': 'acme', 'Idempotency-Key': key },
        body: { chain: await chainOf(variant) },
      }),
  ]);
  return operations.flatMap(([operationId, sendWith]): Case[] => [
    {
      operationId,
      status: 400,
      when: 'the Idempotency-Key is longer than 255 characters',
      send: () => sendWith('k'.repeat(256), 0),
    },
    {
      operationId,
      status: 422,
      when: 'the Idempotency-Key was used with another request',
      send: async () => {
        const key = `reused-${operationId}`;
        expect((await sendWith(key, 0)).status).toBeLessThan(300);
        return sendWith(key, 1);
      },
    },
    {
      operationId,
      status: 409,
      when: 'the first request with the Idempotency-Key is still running',
      send: async () => {
        const key = `running-${operationId}`;
        expect((await sendWith(key, 0)).status).toBeLessThan(300);
        await queryDatabase(
          context.service.databaseUrl,
          `UPDATE idempotency_key SET state = 'in-progress', lease_until = now() + interval '1 hour'
            WHERE expires_at = (SELECT max(expires_at) FROM idempotency_key)`,
        );
        return sendWith(key, 0);
      },
    },
  ]);
}
