import { createPrivateKey, randomUUID, sign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { OpenApiContract, type OpenApiDocument } from './support/openapi-contract.js';
import { selfSignedPresentation } from './support/credentials-harness.js';
import { queryDatabase } from './support/database.js';
import {
  call,
  startTestService,
  type ApiRequest,
  type ApiResponse,
  type TestService,
} from './support/test-service.js';

/**
 * Contract test: every endpoint is called over real HTTP, on its success paths and its error
 * paths, and every real answer is checked against the OpenAPI document the service serves: the status is
 * one the operation documents, the content type is documented for that status, and the body is valid
 * against the schema for it (with no undocumented fields). Finally, every documented answer must have been
 * seen, except 500 and 503, which need a broken service.
 */

const tenants = '/ctrl/api/v1.0/tenants';
const tenant = (id: string) => `${tenants}/${id}`;

interface Case {
  operationId: string;
  status: number;
  when: string;
  send: () => Promise<ApiResponse>;
}

describe('The API against its OpenAPI document', () => {
  let service: TestService;
  let contract: OpenApiContract;
  /** A well-signed access token of a caller with neither agent-admin nor agent-user. */
  let noRoleToken: string;

  const send = (path: string, request: ApiRequest = {}) => service.request(path, request);
  const post = (path: string, request: ApiRequest = {}) =>
    service.request(path, { method: 'POST', ...request });
  const bigBody = () => JSON.stringify({ id: 'big', label: 'x'.repeat(110 * 1024) });
  const asDemo = { as: 'demo' } as const;
  const anonymous = { as: 'anonymous' } as const;
  const badToken = { token: 'not.a.token' } as const;
  const withoutRole = () => ({ token: noRoleToken });
  const tenantHeader = (id: string) => ({ headers: { 'x-tenant-id': id } });

  beforeAll(async () => {
    service = await startTestService();
    const document = await call<OpenApiDocument>(service.url, '/ctrl/v3/api-docs');
    contract = new OpenApiContract(document.body);
    for (const [id, label] of [
      ['acme', 'ACME Corp'],
      ['demo', 'Demo'],
      ['other', 'Other Org'],
      ['to-update', 'To update'],
      ['to-delete', 'To delete'],
    ]) {
      expect((await post(`${tenants}/create`, { query: { id, label } })).status).toBe(201);
    }
    noRoleToken = await forgeTokenWithoutRoles(service);
  });

  afterAll(async () => {
    await service.close();
  });

  const cases: Case[] = [
    // createTenant
    {
      operationId: 'createTenant',
      status: 201,
      when: 'the fields are query parameters',
      send: () => post(`${tenants}/create`, { query: { id: 'by-query', label: 'By query' } }),
    },
    {
      operationId: 'createTenant',
      status: 201,
      when: 'the fields are a JSON body with an image',
      send: () =>
        post(`${tenants}/create`, {
          body: { id: 'by-body', label: 'By body', imageUrl: 'https://by-body.example/logo.png' },
        }),
    },
    {
      operationId: 'createTenant',
      status: 400,
      when: 'the id is invalid',
      send: () => post(`${tenants}/create`, { query: { id: '-bad', label: 'Bad' } }),
    },
    {
      operationId: 'createTenant',
      status: 400,
      when: 'the body is not JSON',
      send: () => post(`${tenants}/create`, { body: '{"id":' }),
    },
    {
      operationId: 'createTenant',
      status: 400,
      when: 'query and body disagree',
      send: () =>
        post(`${tenants}/create`, { query: { label: 'One' }, body: { id: 'two', label: 'Two' } }),
    },
    {
      operationId: 'createTenant',
      status: 401,
      when: 'no token is sent',
      send: () => post(`${tenants}/create`, { ...anonymous, query: { id: 'a', label: 'A' } }),
    },
    {
      operationId: 'createTenant',
      status: 401,
      when: 'the token is not valid',
      send: () => post(`${tenants}/create`, { ...badToken, query: { id: 'a', label: 'A' } }),
    },
    {
      operationId: 'createTenant',
      status: 403,
      when: 'the caller is an agent-user',
      send: () => post(`${tenants}/create`, { ...asDemo, query: { id: 'a', label: 'A' } }),
    },
    {
      operationId: 'createTenant',
      status: 409,
      when: 'the id is taken',
      send: () => post(`${tenants}/create`, { query: { id: 'acme', label: 'Again' } }),
    },
    {
      operationId: 'createTenant',
      status: 413,
      when: 'the body is over 100 kB',
      send: () => post(`${tenants}/create`, { body: bigBody() }),
    },
    {
      operationId: 'createTenant',
      status: 415,
      when: 'the body is not JSON by its content type',
      send: () =>
        post(`${tenants}/create`, {
          headers: { 'content-type': 'text/plain' },
          body: 'id=plain&label=Plain',
        }),
    },
    // updateTenant
    {
      operationId: 'updateTenant',
      status: 200,
      when: 'the label is a query parameter',
      send: () => post(`${tenant('to-update')}/update`, { query: { label: 'Updated' } }),
    },
    {
      operationId: 'updateTenant',
      status: 200,
      when: 'the body removes the image',
      send: () => post(`${tenant('to-update')}/update`, { body: { imageUrl: null } }),
    },
    {
      operationId: 'updateTenant',
      status: 400,
      when: 'there is nothing to change',
      send: () => post(`${tenant('to-update')}/update`, { body: {} }),
    },
    {
      operationId: 'updateTenant',
      status: 400,
      when: 'the path id is invalid',
      send: () => post(`${tenant('-bad')}/update`, { query: { label: 'X' } }),
    },
    {
      operationId: 'updateTenant',
      status: 401,
      when: 'no token is sent',
      send: () => post(`${tenant('to-update')}/update`, { ...anonymous, query: { label: 'X' } }),
    },
    {
      operationId: 'updateTenant',
      status: 403,
      when: 'the caller is an agent-user, even for its own tenant',
      send: () => post(`${tenant('demo')}/update`, { ...asDemo, query: { label: 'X' } }),
    },
    {
      operationId: 'updateTenant',
      status: 404,
      when: 'there is no such tenant',
      send: () => post(`${tenant('nobody')}/update`, { query: { label: 'X' } }),
    },
    {
      operationId: 'updateTenant',
      status: 413,
      when: 'the body is over 100 kB',
      send: () => post(`${tenant('to-update')}/update`, { body: bigBody() }),
    },
    {
      operationId: 'updateTenant',
      status: 415,
      when: 'the body is not JSON by its content type',
      send: () =>
        post(`${tenant('to-update')}/update`, {
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: 'label=Form',
        }),
    },
    // deleteTenant
    {
      operationId: 'deleteTenant',
      status: 204,
      when: 'the tenant exists',
      send: () => post(`${tenant('to-delete')}/delete`),
    },
    {
      operationId: 'deleteTenant',
      status: 400,
      when: 'the path id is invalid',
      send: () => post(`${tenant('a%20b')}/delete`),
    },
    {
      operationId: 'deleteTenant',
      status: 401,
      when: 'the token is not valid',
      send: () => post(`${tenant('acme')}/delete`, badToken),
    },
    {
      operationId: 'deleteTenant',
      status: 403,
      when: 'the caller is an agent-user',
      send: () => post(`${tenant('demo')}/delete`, asDemo),
    },
    {
      operationId: 'deleteTenant',
      status: 404,
      when: 'there is no such tenant',
      send: () => post(`${tenant('nobody')}/delete`),
    },
    // listTenants
    {
      operationId: 'listTenants',
      status: 200,
      when: 'an admin asks for the first page',
      send: () => send(tenants),
    },
    {
      operationId: 'listTenants',
      status: 200,
      when: 'paging, sorting and searching',
      send: () => send(tenants, { query: { page: '0', size: '2', sort: 'label,asc', q: 'o' } }),
    },
    {
      operationId: 'listTenants',
      status: 200,
      when: 'an agent-user asks (only its own)',
      send: () => send(tenants, asDemo),
    },
    {
      operationId: 'listTenants',
      status: 400,
      when: 'the page size is out of range',
      send: () => send(tenants, { query: { size: '0' } }),
    },
    {
      operationId: 'listTenants',
      status: 400,
      when: 'a query parameter is unknown',
      send: () => send(tenants, { query: { colour: 'blue' } }),
    },
    {
      operationId: 'listTenants',
      status: 401,
      when: 'no token is sent',
      send: () => send(tenants, anonymous),
    },
    {
      operationId: 'listTenants',
      status: 403,
      when: 'the token carries neither role',
      send: () => send(tenants, withoutRole()),
    },
    // getTenant
    {
      operationId: 'getTenant',
      status: 200,
      when: 'the tenant exists',
      send: () => send(tenant('acme')),
    },
    {
      operationId: 'getTenant',
      status: 200,
      when: 'an agent-user asks for its own tenant',
      send: () => send(tenant('demo'), asDemo),
    },
    {
      operationId: 'getTenant',
      status: 400,
      when: 'the path id is invalid',
      send: () => send(tenant('.dot')),
    },
    {
      operationId: 'getTenant',
      status: 401,
      when: 'no token is sent',
      send: () => send(tenant('acme'), anonymous),
    },
    {
      operationId: 'getTenant',
      status: 403,
      when: 'an agent-user asks for another tenant',
      send: () => send(tenant('other'), asDemo),
    },
    {
      operationId: 'getTenant',
      status: 404,
      when: 'there is no such tenant',
      send: () => send(tenant('nobody')),
    },
    // getDid
    {
      operationId: 'getDid',
      status: 200,
      when: 'an admin names a tenant',
      send: () => send('/ctrl/api/v1.0/did', tenantHeader('acme')),
    },
    {
      operationId: 'getDid',
      status: 200,
      when: 'an agent-user names its own tenant',
      send: () => send('/ctrl/api/v1.0/did', { ...asDemo, ...tenantHeader('demo') }),
    },
    {
      operationId: 'getDid',
      status: 400,
      when: 'the tenant header is missing',
      send: () => send('/ctrl/api/v1.0/did'),
    },
    {
      operationId: 'getDid',
      status: 400,
      when: 'the tenant header is malformed',
      send: () => send('/ctrl/api/v1.0/did', tenantHeader('a,b')),
    },
    {
      operationId: 'getDid',
      status: 401,
      when: 'no token is sent',
      send: () => send('/ctrl/api/v1.0/did', { ...anonymous, ...tenantHeader('acme') }),
    },
    {
      operationId: 'getDid',
      status: 403,
      when: 'an agent-user names another tenant',
      send: () => send('/ctrl/api/v1.0/did', { ...asDemo, ...tenantHeader('other') }),
    },
    {
      operationId: 'getDid',
      status: 404,
      when: 'an admin names an unknown tenant',
      send: () => send('/ctrl/api/v1.0/did', tenantHeader('nobody')),
    },
    // getDidDocument
    {
      operationId: 'getDidDocument',
      status: 200,
      when: 'an admin names a tenant',
      send: () => send('/ctrl/api/v1.0/did/document', tenantHeader('acme')),
    },
    {
      operationId: 'getDidDocument',
      status: 400,
      when: 'the tenant header is missing',
      send: () => send('/ctrl/api/v1.0/did/document'),
    },
    {
      operationId: 'getDidDocument',
      status: 401,
      when: 'the token is not valid',
      send: () => send('/ctrl/api/v1.0/did/document', { ...badToken, ...tenantHeader('acme') }),
    },
    {
      operationId: 'getDidDocument',
      status: 403,
      when: 'the token carries neither role',
      send: () =>
        send('/ctrl/api/v1.0/did/document', { ...withoutRole(), ...tenantHeader('acme') }),
    },
    {
      operationId: 'getDidDocument',
      status: 404,
      when: 'an admin names an unknown tenant',
      send: () => send('/ctrl/api/v1.0/did/document', tenantHeader('nobody')),
    },
    // issueCredential
    ...credentialCases(),
    // createWebhook
    ...webhookCases('tenant'),
    ...webhookCases('admin'),
    ...trustedIssuerCases(),
    // Idempotency-Key on the creates and issues
    ...idempotencyCases(),
    // health
    {
      operationId: 'live',
      status: 200,
      when: 'the process runs',
      send: () => send('/ctrl/health/live', anonymous),
    },
    {
      operationId: 'ready',
      status: 200,
      when: 'the database and the issuer keys are there',
      send: () => send('/ctrl/health/ready', anonymous),
    },
  ];

  /** The tenant's webhook routes, or (`admin`) the same operations on all-tenant subscriptions. */
  function webhookCases(scope: 'tenant' | 'admin'): Case[] {
    const admin = scope === 'admin';
    const webhooks = admin ? '/ctrl/api/v1.0/admin/webhooks' : '/ctrl/api/v1.0/webhooks';
    const operation = (name: string) => (admin ? name.replace('Webhook', 'AdminWebhook') : name);
    const owner: { headers?: Record<string, string> } = admin ? {} : tenantHeader('acme');
    // A public address literal: no DNS here, and the policy outside local mode wants https to one.
    const subscription = { url: 'https://93.184.215.14/agent-events', events: ['tenant.updated'] };
    const create = (request: ApiRequest = {}) =>
      post(`${webhooks}/create`, { ...owner, body: subscription, ...request });
    const created = async () => ((await create()).body as { id: string }).id;
    const unknownId = '6f1c2d3e-4b5a-4c7d-8e9f-0a1b2c3d4e5f';
    const redeliverPath = async (id: string) => {
      const queued = await post(`${webhooks}/${id}/test`, owner);
      return `${webhooks}/${id}/deliveries/${(queued.body as { deliveryId: string }).deliveryId}/redeliver`;
    };
    /** An agent-user may not act: for another tenant, or at all on the admin path. */
    const forbidden = admin
      ? { ...asDemo, why: 'an agent-user calls it' }
      : { ...asDemo, ...tenantHeader('other'), why: 'an agent-user names another tenant' };
    const { why: forbiddenWhy, ...forbiddenRequest } = forbidden;
    const byId: [
      string,
      (id: string) => string | Promise<string>,
      'GET' | 'POST',
      number,
      unknown?,
    ][] = [
      ['getWebhook', (id) => `${webhooks}/${id}`, 'GET', 200],
      ['deleteWebhook', (id) => `${webhooks}/${id}/delete`, 'POST', 204],
      ['updateWebhook', (id) => `${webhooks}/${id}/update`, 'POST', 200, { enabled: false }],
      ['rotateWebhookSecret', (id) => `${webhooks}/${id}/rotate-secret`, 'POST', 200],
      ['testWebhook', (id) => `${webhooks}/${id}/test`, 'POST', 202],
      ['listWebhookDeliveries', (id) => `${webhooks}/${id}/deliveries`, 'GET', 200],
      ['redeliverWebhook', redeliverPath, 'POST', 202],
    ];
    const table: [string, number, string, () => Promise<ApiResponse>][] = [
      ['createWebhook', 201, 'a subscription to an https URL is made', () => create()],
      [
        'createWebhook',
        400,
        'the URL is plain http',
        () => create({ body: { url: 'http://93.184.215.14/agent-events' } }),
      ],
      ['createWebhook', 401, 'no token is sent', () => create(anonymous)],
      ['createWebhook', 403, forbiddenWhy, () => create(forbiddenRequest)],
      [
        'createWebhook',
        413,
        'the body is too large',
        () => create({ body: { ...subscription, description: 'x'.repeat(110 * 1024) } }),
      ],
      [
        'createWebhook',
        415,
        'the body is not JSON',
        () =>
          post(`${webhooks}/create`, {
            body: 'x',
            headers: { 'content-type': 'text/plain', ...owner.headers },
          }),
      ],
      ['listWebhooks', 200, 'the subscriptions are listed', () => send(webhooks, owner)],
      [
        'listWebhooks',
        401,
        'the token is not valid',
        () => send(webhooks, { ...badToken, ...owner }),
      ],
      [
        'listWebhooks',
        403,
        'the token carries neither role',
        () => send(webhooks, { ...withoutRole(), ...owner }),
      ],
    ];
    if (admin) {
      const tooLarge = { query: { size: '100000' } };
      table.push(
        ['listWebhooks', 400, 'the page size is out of range', () => send(webhooks, tooLarge)],
        [
          'listWebhookDeliveries',
          400,
          'the page size is out of range',
          async () => send(`${webhooks}/${await created()}/deliveries`, tooLarge),
        ],
      );
    } else {
      table.push(
        ['createWebhook', 404, 'the tenant does not exist', () => create(tenantHeader('nobody'))],
        ['listWebhooks', 400, 'the tenant header is missing', () => send(webhooks)],
        [
          'listWebhooks',
          404,
          'the tenant does not exist',
          () => send(webhooks, tenantHeader('nobody')),
        ],
      );
    }
    for (const [operationId, path, method, success, body] of byId) {
      const call = async (id: string, request: ApiRequest = {}) =>
        send(await path(id), { method, ...owner, body, ...request });
      table.push(
        [operationId, success, 'the subscription is there', async () => call(await created())],
        [operationId, 401, 'no token is sent', async () => call(await created(), anonymous)],
        [operationId, 403, forbiddenWhy, async () => call(await created(), forbiddenRequest)],
        [operationId, 404, 'there is no such subscription', () => call(unknownId)],
      );
      if (!admin) {
        table.push([
          operationId,
          400,
          'the tenant header is missing',
          async () => send(await path(await created()), { method, body }),
        ]);
      }
    }
    const update = async (request: ApiRequest) =>
      post(`${webhooks}/${await created()}/update`, { ...owner, ...request });
    table.push(
      [
        'redeliverWebhook',
        404,
        'the subscription has no such delivery',
        async () => post(`${webhooks}/${await created()}/deliveries/${unknownId}/redeliver`, owner),
      ],
      ['updateWebhook', 400, 'nothing is given to change', () => update({ body: {} })],
      [
        'updateWebhook',
        413,
        'the body is too large',
        () => update({ body: { description: 'x'.repeat(110 * 1024) } }),
      ],
      [
        'updateWebhook',
        415,
        'the body is not JSON',
        () => update({ body: 'x', headers: { 'content-type': 'text/plain', ...owner.headers } }),
      ],
    );
    return table.map(([operationId, status, when, run]) => ({
      operationId: operation(operationId),
      status,
      when,
      send: run,
    }));
  }

  /** The tenant's trusted issuers list: each route on its success and error paths. */
  function trustedIssuerCases(): Case[] {
    const base = '/ctrl/api/v1.0/trusted-issuers';
    const owner = tenantHeader('acme');
    let next = 0;
    const issuer = () => `did:example:contract-${next++}`;
    const create = (request: ApiRequest = {}) =>
      post(`${base}/create`, { ...owner, body: { issuer: issuer() }, ...request });
    const created = async () => ((await create()).body as { id: string }).id;
    const unknownId = '2f0c9a1e-8b7d-4c6e-9f5a-3b2c1d0e9f8a';
    const forbidden = { ...asDemo, ...tenantHeader('other') };
    const table: [string, number, string, () => Promise<ApiResponse>][] = [
      ['createTrustedIssuer', 201, 'an issuer is added', () => create()],
      [
        'createTrustedIssuer',
        400,
        'the issuer is not a URL',
        () => create({ body: { issuer: 'not a url' } }),
      ],
      ['createTrustedIssuer', 401, 'no token is sent', () => create(anonymous)],
      ['createTrustedIssuer', 403, 'an agent-user names another tenant', () => create(forbidden)],
      [
        'createTrustedIssuer',
        404,
        'the tenant does not exist',
        () => create(tenantHeader('nobody')),
      ],
      [
        'createTrustedIssuer',
        409,
        'the issuer is listed already',
        async () => {
          await create({ body: { issuer: 'did:example:twice' } });
          return create({ body: { issuer: 'did:example:twice' } });
        },
      ],
      [
        'createTrustedIssuer',
        413,
        'the body is too large',
        () => create({ body: { issuer: 'did:example:big', description: 'x'.repeat(110 * 1024) } }),
      ],
      [
        'createTrustedIssuer',
        415,
        'the body is not JSON',
        () =>
          post(`${base}/create`, {
            body: 'x',
            headers: { 'content-type': 'text/plain', ...owner.headers },
          }),
      ],
      [
        'createTrustedIssuer',
        422,
        'the tenant keeps 100 already',
        async () => {
          const full = tenantHeader('other');
          for (let count = 0; count < 100; count++) {
            await post(`${base}/create`, { ...full, body: { issuer: `did:example:${count}` } });
          }
          return post(`${base}/create`, { ...full, body: { issuer: 'did:example:one-more' } });
        },
      ],
      ['listTrustedIssuers', 200, 'the entries are listed', () => send(base, owner)],
      [
        'listTrustedIssuers',
        400,
        'the sort is unknown',
        () => send(base, { ...owner, query: { sort: 'secret' } }),
      ],
      [
        'listTrustedIssuers',
        401,
        'the token is not valid',
        () => send(base, { ...badToken, ...owner }),
      ],
      [
        'listTrustedIssuers',
        403,
        'the token carries neither role',
        () => send(base, { ...withoutRole(), ...owner }),
      ],
      [
        'listTrustedIssuers',
        404,
        'the tenant does not exist',
        () => send(base, tenantHeader('nobody')),
      ],
    ];
    const byId: [string, (id: string) => string, 'GET' | 'POST', number][] = [
      ['getTrustedIssuer', (id) => `${base}/${id}`, 'GET', 200],
      ['deleteTrustedIssuer', (id) => `${base}/${id}/delete`, 'POST', 204],
    ];
    for (const [operationId, path, method, success] of byId) {
      const call = async (id: string, request: ApiRequest = {}) =>
        send(path(id), { method, ...owner, ...request });
      table.push(
        [operationId, success, 'the entry is there', async () => call(await created())],
        [
          operationId,
          400,
          'the tenant header is missing',
          async () => send(path(await created()), { method }),
        ],
        [operationId, 401, 'no token is sent', async () => call(await created(), anonymous)],
        [
          operationId,
          403,
          'an agent-user names another tenant',
          async () => call(await created(), forbidden),
        ],
        [operationId, 404, 'there is no such entry', () => call(unknownId)],
      );
    }
    return table.map(([operationId, status, when, run]) => ({
      operationId,
      status,
      when,
      send: run,
    }));
  }

  /**
   * The answers `Idempotency-Key` adds (api.md, Retrying safely): a malformed key 400, the key with another
   * request 422, and 409 while the first request with the key runs (its row is set back to running).
   */
  function idempotencyCases(): Case[] {
    const subscription = { url: 'https://93.184.215.14/agent-events' };
    const credential = {
      '@context': [
        'https://www.w3.org/ns/credentials/v2',
        'https://www.w3.org/ns/credentials/examples/v2',
      ],
      type: ['VerifiableCredential'],
      credentialSubject: { id: 'did:example:1', alumniOf: 'The School of Examples' },
    };
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
            service.databaseUrl,
            `UPDATE idempotency_key SET state = 'in-progress', lease_until = now() + interval '1 hour'
              WHERE expires_at = (SELECT max(expires_at) FROM idempotency_key)`,
          );
          return sendWith(key, 0);
        },
      },
    ]);
  }

  function credentialCases(): Case[] {
    const issuePath = '/ctrl/api/v1.0/credentials/issue';
    const verifyPath = '/ctrl/api/v1.0/credentials/verify';
    const credential = {
      '@context': [
        'https://www.w3.org/ns/credentials/v2',
        'https://www.w3.org/ns/credentials/examples/v2',
      ],
      type: ['VerifiableCredential'],
      credentialSubject: { id: 'did:example:1', alumniOf: 'The School of Examples' },
    };
    const issueFor = (id: string, request: ApiRequest = {}) =>
      post(issuePath, { ...tenantHeader(id), body: { credential }, ...request });
    const issued = async () =>
      ((await issueFor('acme')).body as { verifiableCredential: Record<string, unknown> })
        .verifiableCredential;
    const verify = async (change: Record<string, unknown> = {}, request: ApiRequest = {}) =>
      post(verifyPath, {
        ...tenantHeader('acme'),
        body: { verifiableCredential: { ...(await issued()), ...change } },
        ...request,
      });
    const big = { credential: { ...credential, name: 'x'.repeat(110 * 1024) } };
    const issueCases: [number, string, () => Promise<ApiResponse>][] = [
      [201, 'a tenant signs a credential', () => issueFor('acme')],
      [
        400,
        'the credential has a proof',
        () => issueFor('acme', { body: { credential: { ...credential, proof: {} } } }),
      ],
      [401, 'no token is sent', () => issueFor('acme', anonymous)],
      [403, 'an agent-user names another tenant', () => issueFor('other', asDemo)],
      [404, 'an admin names an unknown tenant', () => issueFor('nobody')],
      [413, 'the body is too large', () => issueFor('acme', { body: big })],
      [
        415,
        'the body is not JSON',
        () =>
          issueFor('acme', {
            body: 'x',
            headers: { 'content-type': 'text/plain', 'x-tenant-id': 'acme' },
          }),
      ],
    ];
    const verifyCases: [number, string, () => Promise<ApiResponse>][] = [
      [200, 'an issued credential is sent back', () => verify()],
      [422, 'the credential was changed after signing', () => verify({ name: 'Changed' })],
      [400, 'the credential has no subject', () => verify({ credentialSubject: 'x' })],
      [401, 'no token is sent', () => verify({}, anonymous)],
      [
        403,
        'an agent-user names another tenant',
        () => verify({}, { ...asDemo, ...tenantHeader('other') }),
      ],
      [404, 'an admin names an unknown tenant', () => verify({}, tenantHeader('nobody'))],
      [
        413,
        'the body is too large',
        () =>
          post(verifyPath, {
            ...tenantHeader('acme'),
            body: { verifiableCredential: big.credential },
          }),
      ],
      [
        415,
        'the body is not JSON',
        () =>
          post(verifyPath, {
            body: 'x',
            headers: { 'content-type': 'text/plain', 'x-tenant-id': 'acme' },
          }),
      ],
    ];
    const presentationsPath = '/ctrl/api/v1.0/presentations/verify';
    const present = async (request: ApiRequest = {}) =>
      post(presentationsPath, {
        ...tenantHeader('acme'),
        body: { verifiablePresentation: await selfSignedPresentation([await issued()]) },
        ...request,
      });
    const presentationCases: [number, string, () => Promise<ApiResponse>][] = [
      [200, 'a holder presents an issued credential', () => present()],
      [
        422,
        'the presentation was changed after signing',
        async () =>
          post(presentationsPath, {
            ...tenantHeader('acme'),
            body: {
              verifiablePresentation: {
                ...(await selfSignedPresentation([await issued()])),
                id: 'urn:uuid:changed',
              },
            },
          }),
      ],
      [
        400,
        'it is not a presentation',
        () => present({ body: { verifiablePresentation: { type: 'x' } } }),
      ],
      [401, 'no token is sent', () => present(anonymous)],
      [
        403,
        'an agent-user names another tenant',
        () => present({ ...asDemo, ...tenantHeader('other') }),
      ],
      [404, 'an admin names an unknown tenant', () => present(tenantHeader('nobody'))],
      [
        413,
        'the body is too large',
        () =>
          post(presentationsPath, {
            ...tenantHeader('acme'),
            body: { verifiablePresentation: big.credential },
          }),
      ],
      [
        415,
        'the body is not JSON',
        () =>
          post(presentationsPath, {
            body: 'x',
            headers: { 'content-type': 'text/plain', 'x-tenant-id': 'acme' },
          }),
      ],
    ];
    const statusPath = '/ctrl/api/v1.0/credentials/status';
    const revocation = { type: 'BitstringStatusListEntry', statusPurpose: 'revocation' };
    const changeStatus = async (request: ApiRequest = {}) =>
      post(statusPath, {
        ...tenantHeader('acme'),
        body: { credentialId: (await issued()).id, credentialStatus: revocation },
        ...request,
      });
    const listUrl = async () =>
      new URL(
        ((await issued()).credentialStatus as { statusListCredential: string })
          .statusListCredential,
      ).pathname;
    const statusCases: [string, number, string, () => Promise<ApiResponse>][] = [
      ['updateCredentialStatus', 204, 'a credential is revoked', () => changeStatus()],
      [
        'updateCredentialStatus',
        400,
        'a revocation would be undone',
        async () =>
          post(statusPath, {
            ...tenantHeader('acme'),
            body: {
              credentialId: (await issued()).id,
              credentialStatus: revocation,
              status: false,
            },
          }),
      ],
      ['updateCredentialStatus', 401, 'no token is sent', () => changeStatus(anonymous)],
      [
        'updateCredentialStatus',
        403,
        'an agent-user names another tenant',
        () => changeStatus({ ...asDemo, ...tenantHeader('other') }),
      ],
      [
        'updateCredentialStatus',
        404,
        'the tenant issued no such credential',
        () =>
          post(statusPath, {
            ...tenantHeader('acme'),
            body: { credentialId: 'urn:uuid:nothing', credentialStatus: revocation },
          }),
      ],
      [
        'updateCredentialStatus',
        413,
        'the body is too large',
        () =>
          post(statusPath, {
            ...tenantHeader('acme'),
            body: { credentialId: 'x'.repeat(110 * 1024), credentialStatus: revocation },
          }),
      ],
      [
        'updateCredentialStatus',
        415,
        'the body is not JSON',
        () =>
          post(statusPath, {
            body: 'x',
            headers: { 'content-type': 'text/plain', 'x-tenant-id': 'acme' },
          }),
      ],
      ['getStatusList', 200, 'anyone reads a list', async () => send(await listUrl(), anonymous)],
      [
        'getStatusList',
        304,
        'the list did not change',
        async () => {
          const path = await listUrl();
          const etag = (await send(path, anonymous)).headers.get('etag')!;
          return send(path, { ...anonymous, headers: { 'if-none-match': etag } });
        },
      ],
      [
        'getStatusList',
        400,
        'the tenant id is malformed',
        () => send('/ctrl/status-lists/-bad/0b9e3c56-5c3d-4f4e-9a59-3f1d1c2b7a10', anonymous),
      ],
      [
        'getStatusList',
        404,
        'there is no such list',
        () => send('/ctrl/status-lists/acme/0b9e3c56-5c3d-4f4e-9a59-3f1d1c2b7a10', anonymous),
      ],
      [
        'publishStatusList',
        204,
        'the tenant publishes its list',
        async () => post(`${await listUrl()}/publish`),
      ],
      [
        'publishStatusList',
        400,
        'the tenant id is malformed',
        () => post('/ctrl/status-lists/-bad/0b9e3c56-5c3d-4f4e-9a59-3f1d1c2b7a10/publish'),
      ],
      [
        'publishStatusList',
        401,
        'no token is sent',
        async () => post(`${await listUrl()}/publish`, anonymous),
      ],
      [
        'publishStatusList',
        403,
        "an agent-user publishes another tenant's list",
        async () => post(`${await listUrl()}/publish`, asDemo),
      ],
      [
        'publishStatusList',
        404,
        'there is no such list',
        () => post('/ctrl/status-lists/acme/0b9e3c56-5c3d-4f4e-9a59-3f1d1c2b7a10/publish'),
      ],
    ];
    const recordsPath = '/ctrl/api/v1.0/credentials';
    const recordCases: [string, number, string, () => Promise<ApiResponse>][] = [
      [
        'listCredentials',
        200,
        'a tenant lists what it issued',
        () => send(recordsPath, tenantHeader('acme')),
      ],
      [
        'listCredentials',
        400,
        'the state filter is unknown',
        () => send(recordsPath, { ...tenantHeader('acme'), query: { status: 'lost' } }),
      ],
      [
        'listCredentials',
        401,
        'no token is sent',
        () => send(recordsPath, { ...anonymous, ...tenantHeader('acme') }),
      ],
      [
        'listCredentials',
        403,
        'an agent-user names another tenant',
        () => send(recordsPath, { ...asDemo, ...tenantHeader('other') }),
      ],
      [
        'listCredentials',
        404,
        'an admin names an unknown tenant',
        () => send(recordsPath, tenantHeader('nobody')),
      ],
      [
        'getCredential',
        200,
        'a tenant reads a credential it issued',
        async () =>
          send(
            `${recordsPath}/${encodeURIComponent((await issued()).id as string)}`,
            tenantHeader('acme'),
          ),
      ],
      ['getCredential', 400, 'the tenant header is missing', () => send(`${recordsPath}/urn:x:1`)],
      [
        'getCredential',
        401,
        'no token is sent',
        () => send(`${recordsPath}/urn:x:1`, { ...anonymous, ...tenantHeader('acme') }),
      ],
      [
        'getCredential',
        403,
        'an agent-user names another tenant',
        () => send(`${recordsPath}/urn:x:1`, { ...asDemo, ...tenantHeader('other') }),
      ],
      [
        'getCredential',
        404,
        'the tenant issued no such credential',
        () => send(`${recordsPath}/urn:x:1`, tenantHeader('acme')),
      ],
    ];
    return [
      ...recordCases.map(([operationId, status, when, send]) => ({
        operationId,
        status,
        when,
        send,
      })),
      ...statusCases.map(([operationId, status, when, send]) => ({
        operationId,
        status,
        when,
        send,
      })),
      ...presentationCases.map(([status, when, send]) => ({
        operationId: 'verifyPresentation',
        status,
        when,
        send,
      })),
      ...issueCases.map(([status, when, send]) => ({
        operationId: 'issueCredential',
        status,
        when,
        send,
      })),
      ...verifyCases.map(([status, when, send]) => ({
        operationId: 'verifyCredential',
        status,
        when,
        send,
      })),
    ];
  }

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
