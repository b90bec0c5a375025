import type { ApiRequest, ApiResponse } from '../support/test-service.js';
import { makeCertificate } from '../support/x509-test-pki.js';
import type { Case, ContractContext } from './context.js';

/** The tenant's trusted wallet providers: each route on its success and error paths. */
export function walletProviderCases(context: ContractContext): Case[] {
  const { send, post, asDemo, anonymous, badToken, withoutRole, tenantHeader } = context;
  const base = '/ctrl/api/v1.0/wallet-providers';
  const owner = tenantHeader('acme');
  const root = async () => (await makeCertificate('Contract root', { ca: true })).pem;
  const create = async (request: ApiRequest = {}) =>
    post(`${base}/create`, { ...owner, body: { certificate: await root() }, ...request });
  const created = async () => ((await create()).body as { id: string }).id;
  const unknownId = '5b1e7c2a-4d3f-4a6b-9c8d-7e6f5a4b3c2d';
  const forbidden = { ...asDemo, ...tenantHeader('other') };
  const table: [string, number, string, () => Promise<ApiResponse>][] = [
    ['createWalletProvider', 201, 'a wallet provider is added', () => create()],
    [
      'createWalletProvider',
      400,
      'the certificate is not PEM',
      () => create({ body: { certificate: 'not a certificate' } }),
    ],
    ['createWalletProvider', 401, 'no token is sent', () => create(anonymous)],
    ['createWalletProvider', 403, 'an agent-user names another tenant', () => create(forbidden)],
    [
      'createWalletProvider',
      404,
      'the tenant does not exist',
      () => create(tenantHeader('nobody')),
    ],
    [
      'createWalletProvider',
      409,
      'the certificate is a wallet provider already',
      async () => {
        const certificate = await root();
        await create({ body: { certificate } });
        return create({ body: { certificate } });
      },
    ],
    [
      'createWalletProvider',
      413,
      'the body is too large',
      () => create({ body: { certificate: 'x'.repeat(110 * 1024) } }),
    ],
    [
      'createWalletProvider',
      415,
      'the body is not JSON',
      () =>
        post(`${base}/create`, {
          body: 'x',
          headers: { 'content-type': 'text/plain', ...owner.headers },
        }),
    ],
    [
      'createWalletProvider',
      422,
      'the tenant keeps 50 already',
      async () => {
        const full = tenantHeader('other');
        for (let count = 0; count < 50; count++) {
          await post(`${base}/create`, { ...full, body: { certificate: await root() } });
        }
        return post(`${base}/create`, { ...full, body: { certificate: await root() } });
      },
    ],
    ['listWalletProviders', 200, 'the wallet providers are listed', () => send(base, owner)],
    [
      'listWalletProviders',
      400,
      'the sort is unknown',
      () => send(base, { ...owner, query: { sort: 'secret' } }),
    ],
    [
      'listWalletProviders',
      401,
      'the token is not valid',
      () => send(base, { ...badToken, ...owner }),
    ],
    [
      'listWalletProviders',
      403,
      'the token carries neither role',
      () => send(base, { ...withoutRole(), ...owner }),
    ],
    [
      'listWalletProviders',
      404,
      'the tenant does not exist',
      () => send(base, tenantHeader('nobody')),
    ],
  ];
  const policy = `${base}/policy`;
  const setPolicy = (request: ApiRequest = {}) =>
    post(policy, { ...owner, body: { walletAttestation: 'optional' }, ...request });
  table.push(
    ['getWalletAttestationPolicy', 200, 'the policy is read', () => send(policy, owner)],
    ['getWalletAttestationPolicy', 400, 'the tenant header is missing', () => send(policy)],
    [
      'getWalletAttestationPolicy',
      401,
      'no token is sent',
      () => send(policy, { ...anonymous, ...owner }),
    ],
    [
      'getWalletAttestationPolicy',
      403,
      'an agent-user names another tenant',
      () => send(policy, forbidden),
    ],
    [
      'getWalletAttestationPolicy',
      404,
      'the tenant does not exist',
      () => send(policy, tenantHeader('nobody')),
    ],
    ['setWalletAttestationPolicy', 200, 'the policy is set', () => setPolicy()],
    [
      'setWalletAttestationPolicy',
      400,
      'the setting is unknown',
      () => setPolicy({ body: { walletAttestation: 'sometimes' } }),
    ],
    ['setWalletAttestationPolicy', 401, 'no token is sent', () => setPolicy(anonymous)],
    [
      'setWalletAttestationPolicy',
      403,
      'an agent-user names another tenant',
      () => setPolicy(forbidden),
    ],
    [
      'setWalletAttestationPolicy',
      404,
      'the tenant does not exist',
      () => setPolicy(tenantHeader('nobody')),
    ],
    [
      'setWalletAttestationPolicy',
      413,
      'the body is too large',
      () => setPolicy({ body: { walletAttestation: 'x'.repeat(110 * 1024) } }),
    ],
    [
      'setWalletAttestationPolicy',
      415,
      'the body is not JSON',
      () =>
        post(policy, { body: 'x', headers: { 'content-type': 'text/plain', ...owner.headers } }),
    ],
  );
  const byId: [string, (id: string) => string, 'GET' | 'POST', number][] = [
    ['getWalletProvider', (id) => `${base}/${id}`, 'GET', 200],
    ['deleteWalletProvider', (id) => `${base}/${id}/delete`, 'POST', 204],
  ];
  for (const [operationId, path, method, success] of byId) {
    const call = async (id: string, request: ApiRequest = {}) =>
      send(path(id), { method, ...owner, ...request });
    table.push(
      [operationId, success, 'the wallet provider is there', async () => call(await created())],
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
      [operationId, 404, 'there is no such wallet provider', () => call(unknownId)],
    );
  }
  return table.map(([operationId, status, when, run]) => ({
    operationId,
    status,
    when,
    send: run,
  }));
}
