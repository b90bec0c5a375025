import type { ApiRequest, ApiResponse } from '../support/test-service.js';
import { makeCertificate } from '../support/x509-test-pki.js';
import type { Case, ContractContext } from './context.js';

/** The tenant's X.509 trust anchors: each route on its success and error paths. */
export function trustAnchorCases(context: ContractContext): Case[] {
  const { send, post, asDemo, anonymous, badToken, withoutRole, tenantHeader } = context;
  const base = '/ctrl/api/v1.0/trust-anchors';
  const owner = tenantHeader('acme');
  const root = async () => (await makeCertificate('Contract root', { ca: true })).pem;
  const create = async (request: ApiRequest = {}) =>
    post(`${base}/create`, { ...owner, body: { certificate: await root() }, ...request });
  const created = async () => ((await create()).body as { id: string }).id;
  const unknownId = '5b1e7c2a-4d3f-4a6b-9c8d-7e6f5a4b3c2d';
  const forbidden = { ...asDemo, ...tenantHeader('other') };
  const table: [string, number, string, () => Promise<ApiResponse>][] = [
    ['createTrustAnchor', 201, 'an anchor is added', () => create()],
    [
      'createTrustAnchor',
      400,
      'the certificate is not PEM',
      () => create({ body: { certificate: 'not a certificate' } }),
    ],
    ['createTrustAnchor', 401, 'no token is sent', () => create(anonymous)],
    ['createTrustAnchor', 403, 'an agent-user names another tenant', () => create(forbidden)],
    ['createTrustAnchor', 404, 'the tenant does not exist', () => create(tenantHeader('nobody'))],
    [
      'createTrustAnchor',
      409,
      'the certificate is an anchor already',
      async () => {
        const certificate = await root();
        await create({ body: { certificate } });
        return create({ body: { certificate } });
      },
    ],
    [
      'createTrustAnchor',
      413,
      'the body is too large',
      () => create({ body: { certificate: 'x'.repeat(110 * 1024) } }),
    ],
    [
      'createTrustAnchor',
      415,
      'the body is not JSON',
      () =>
        post(`${base}/create`, {
          body: 'x',
          headers: { 'content-type': 'text/plain', ...owner.headers },
        }),
    ],
    [
      'createTrustAnchor',
      422,
      'the tenant keeps 100 already',
      async () => {
        const full = tenantHeader('other');
        for (let count = 0; count < 100; count++) {
          await post(`${base}/create`, { ...full, body: { certificate: await root() } });
        }
        return post(`${base}/create`, { ...full, body: { certificate: await root() } });
      },
    ],
    ['listTrustAnchors', 200, 'the anchors are listed', () => send(base, owner)],
    [
      'listTrustAnchors',
      400,
      'the sort is unknown',
      () => send(base, { ...owner, query: { sort: 'secret' } }),
    ],
    [
      'listTrustAnchors',
      401,
      'the token is not valid',
      () => send(base, { ...badToken, ...owner }),
    ],
    [
      'listTrustAnchors',
      403,
      'the token carries neither role',
      () => send(base, { ...withoutRole(), ...owner }),
    ],
    [
      'listTrustAnchors',
      404,
      'the tenant does not exist',
      () => send(base, tenantHeader('nobody')),
    ],
  ];
  const byId: [string, (id: string) => string, 'GET' | 'POST', number][] = [
    ['getTrustAnchor', (id) => `${base}/${id}`, 'GET', 200],
    ['deleteTrustAnchor', (id) => `${base}/${id}/delete`, 'POST', 204],
  ];
  for (const [operationId, path, method, success] of byId) {
    const call = async (id: string, request: ApiRequest = {}) =>
      send(path(id), { method, ...owner, ...request });
    table.push(
      [operationId, success, 'the anchor is there', async () => call(await created())],
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
      [operationId, 404, 'there is no such anchor', () => call(unknownId)],
    );
  }
  return table.map(([operationId, status, when, run]) => ({
    operationId,
    status,
    when,
    send: run,
  }));
}
