import { queryDatabase } from '../support/database.js';
import type { ApiRequest, ApiResponse } from '../support/test-service.js';
import type { Case, ContractContext } from './context.js';

/** The configuration the offer cases offer (idempotency.cases.ts offers it too). */
export const offeredConfiguration = 'Offer_badge';
export const offerClaims = { given_name: 'Erika' };

/** The tenant's OpenID4VCI credential offers and the public by-reference route: every documented answer. */
export function oid4vciOfferCases(context: ContractContext): Case[] {
  const { send, post, asDemo, anonymous, badToken, withoutRole, tenantHeader } = context;
  const base = '/ctrl/api/v1.0/oid4vci/offers';
  const owner = tenantHeader('acme');
  let configured: Promise<unknown> | undefined;
  const configure = () =>
    (configured ??= post('/ctrl/api/v1.0/oid4vci/credential-configurations/create', {
      ...owner,
      body: {
        id: offeredConfiguration,
        format: 'dc+sd-jwt',
        vct: 'https://acme.example/credentials/badge',
        claims: [{ path: ['given_name'], mandatory: true }],
      },
    }));
  const body = { credentialConfigurationId: offeredConfiguration, claims: offerClaims };
  const create = async (request: ApiRequest = {}) => {
    await configure();
    return post(base, { ...owner, body, ...request });
  };
  const created = async () => {
    const answer = (await create()).body as { id: string; credentialOfferUri: string };
    return answer;
  };
  const withdrawn = async () => {
    const { id } = await created();
    await post(`${base}/${id}/withdraw`, owner);
    return id;
  };
  const forbidden = { ...asDemo, ...tenantHeader('other') };
  const missing = '00000000-0000-4000-8000-000000000000';
  const table: [string, number, string, () => Promise<ApiResponse>][] = [
    ['createOffer', 201, 'an offer is made', () => create()],
    [
      'createOffer',
      400,
      'a mandatory claim is missing',
      () => create({ body: { ...body, claims: {} } }),
    ],
    ['createOffer', 401, 'no token is sent', () => create(anonymous)],
    ['createOffer', 403, 'an agent-user names another tenant', () => create(forbidden)],
    [
      'createOffer',
      404,
      'the configuration does not exist',
      () => create({ body: { ...body, credentialConfigurationId: 'Nothing_here' } }),
    ],
    [
      'createOffer',
      413,
      'the body is too large',
      () => create({ body: { ...body, claims: { given_name: 'x'.repeat(110 * 1024) } } }),
    ],
    [
      'createOffer',
      415,
      'the body is not JSON',
      () => post(base, { body: 'x', headers: { 'content-type': 'text/plain', ...owner.headers } }),
    ],
    [
      'createOffer',
      422,
      'the tenant has 1000 open offers',
      async () => {
        await configure();
        // The cap's worth of open offers, written at once rather than by 1000 requests.
        await queryDatabase(
          context.service.databaseUrl,
          `INSERT INTO oid4vci_offer (id, tenant_id, configuration_id, configuration, status, by_value,
             secrets_sealed, pre_authorized_code_hash, reference_hash, expires_at)
           SELECT gen_random_uuid(), 'demo', 'x', '{}', 'offered', false, '\\x00',
                  decode(md5('code' || i), 'hex'), decode(md5('reference' || i), 'hex'),
                  now() + interval '1 hour'
             FROM generate_series(1, 1000) AS i`,
        );
        await post('/ctrl/api/v1.0/oid4vci/credential-configurations/create', {
          ...tenantHeader('demo'),
          body: { id: 'Offer_full', format: 'dc+sd-jwt', vct: 'https://acme.example/full' },
        });
        return post(base, {
          ...tenantHeader('demo'),
          body: { credentialConfigurationId: 'Offer_full', claims: {} },
        });
      },
    ],
    ['listOffers', 200, 'the offers are listed', () => send(base, owner)],
    [
      'listOffers',
      400,
      'the sort is unknown',
      () => send(base, { ...owner, query: { sort: 'id' } }),
    ],
    ['listOffers', 401, 'the token is not valid', () => send(base, { ...badToken, ...owner })],
    [
      'listOffers',
      403,
      'the token carries neither role',
      () => send(base, { ...withoutRole(), ...owner }),
    ],
    ['listOffers', 404, 'the tenant does not exist', () => send(base, tenantHeader('nobody'))],
  ];
  const byId: [string, (id: string) => string, 'GET' | 'POST', number][] = [
    ['getOffer', (id) => `${base}/${id}`, 'GET', 200],
    ['withdrawOffer', (id) => `${base}/${id}/withdraw`, 'POST', 200],
    ['getOfferQrSvg', (id) => `${base}/${id}/qr.svg`, 'GET', 200],
    ['getOfferQrPng', (id) => `${base}/${id}/qr.png`, 'GET', 200],
  ];
  for (const [operationId, path, method, success] of byId) {
    const call = (id: string, request: ApiRequest = {}) =>
      send(path(id), { method, ...owner, ...request });
    table.push(
      [operationId, success, 'the offer is open', async () => call((await created()).id)],
      [
        operationId,
        400,
        'the tenant header is missing',
        async () => send(path((await created()).id), { method }),
      ],
      [operationId, 401, 'no token is sent', async () => call((await created()).id, anonymous)],
      [
        operationId,
        403,
        'an agent-user names another tenant',
        async () => call((await created()).id, forbidden),
      ],
      [operationId, 404, 'there is no such offer', () => call(missing)],
    );
    if (operationId !== 'getOffer') {
      table.push([
        operationId,
        409,
        'the offer was withdrawn',
        async () => call(await withdrawn()),
      ]);
    }
  }
  const referencePath = async () =>
    new URL(new URL((await created()).credentialOfferUri).searchParams.get('credential_offer_uri')!)
      .pathname;
  table.push(
    [
      'getCredentialOffer',
      200,
      'the offer is open',
      async () => send(await referencePath(), anonymous),
    ],
    [
      'getCredentialOffer',
      400,
      'the tenant id is malformed',
      async () => send((await referencePath()).replace('/acme/', '/-x/'), anonymous),
    ],
    [
      'getCredentialOffer',
      404,
      'the reference is unknown',
      () => send(`/ctrl/oid4vci/acme/credential-offers/${'A'.repeat(43)}`, anonymous),
    ],
  );
  return table.map(([operationId, status, when, run]) => ({
    operationId,
    status,
    when,
    send: run,
  }));
}
