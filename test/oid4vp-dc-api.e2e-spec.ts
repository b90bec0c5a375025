import 'reflect-metadata';
import { setGlobalConfig } from '@openid4vc/oauth2';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { CertificateAuthorityService } from '../src/certificates/certificate-authority.service.js';
import { expectFieldErrors, expectProblem } from './support/problems.js';
import { sdJwtBadge } from './support/oid4vci-fixtures.js';
import { receiveCredentials } from './support/oid4vci-holder.js';
import { walletKey, type WalletKey } from './support/oid4vci-wallet.js';
import {
  dcApiResponseData,
  resolveDcApiRequest,
  type DcApiRequest,
} from './support/oid4vp-dc-api-wallet.js';
import { presentWithKeyBinding } from './support/oid4vp-holder.js';
import { requestEvents } from './support/oid4vp-requests.js';
import { startTestService, type TestService } from './support/test-service.js';

type Json = Record<string, unknown>;

const requests = '/ctrl/api/v1.0/oid4vp/requests';
const origin = 'https://shop.example';
const badgeQuery = {
  credentials: [
    {
      id: 'badge',
      format: 'dc+sd-jwt',
      meta: { vct_values: [sdJwtBadge.vct] },
      claims: [{ path: ['given_name'] }],
    },
  ],
};
const frame = { given_name: true };

/**
 * OpenID4VP over the W3C Digital Credentials API (OpenID4VP 1.0 appendix A), end to end over HTTP and
 * PostgreSQL: the requests API answers a `dcApiRequest`, OWF's wallet library (@openid4vc/openid4vp)
 * parses it with the browser's origin as a wallet behind `navigator.credentials.get` does (verifying a
 * signed one's `x5c` chain up to the development authority's root, with node's X.509), answers with
 * an SD-JWT VC presented by @sd-jwt/sd-jwt-vc (KB-JWT `aud: origin:<origin>`), and the relying
 * party's back end posts what the browser returned to `dc-api-response`.
 */
describe('OpenID4VP over the Digital Credentials API', () => {
  let service: TestService;
  let root: Buffer;

  beforeAll(async () => {
    setGlobalConfig({ allowInsecureUrls: true });
    service = await startTestService();
    for (const id of ['demo', 'other']) await service.client().createTenant({ id, label: id });
    await service.client().createCredentialConfiguration('demo', sdJwtBadge);
    root = (await service.app.get(CertificateAuthorityService).current())!.root!;
  });
  afterAll(async () => {
    setGlobalConfig({ allowInsecureUrls: false });
    await service.close();
  });

  const create = (body: Json, tenantId = 'demo') =>
    service.request<Json>(requests, {
      method: 'POST',
      headers: { 'x-tenant-id': tenantId },
      body: {
        dcqlQuery: badgeQuery,
        responseMode: 'dc_api.jwt',
        expectedOrigins: [origin],
        ...body,
      },
    });

  async function open(body: Json = {}) {
    const created = await create(body);
    expect(created.status).toBe(201);
    return {
      id: created.body.id as string,
      clientId: created.body.clientId as string,
      dcApiRequest: created.body.dcApiRequest as DcApiRequest,
      body: created.body,
    };
  }

  const read = (id: string, tenantId = 'demo') =>
    service.request<Json>(`${requests}/${id}`, { headers: { 'x-tenant-id': tenantId } });

  const submit = (id: string, body: unknown, tenantId = 'demo') =>
    service.request<Json>(`${requests}/${id}/dc-api-response`, {
      method: 'POST',
      headers: { 'x-tenant-id': tenantId },
      body,
    });

  async function issue(claims: Json = { given_name: 'Erika' }) {
    const offer = await service.request<Json>('/ctrl/api/v1.0/oid4vci/offers', {
      method: 'POST',
      headers: { 'x-tenant-id': 'demo' },
      body: { credentialConfigurationId: sdJwtBadge.id, claims },
    });
    expect(offer.status).toBe(201);
    const key = await walletKey('ES256');
    const received = await receiveCredentials(offer.body.credentialOfferUri as string, [key]);
    return { credential: received.credentials[0] as string, key };
  }

  /** The browser's `data` for a KB-JWT with this nonce and audience, made by the wallet library. */
  async function answer(
    dcApiRequest: DcApiRequest,
    holder: { credential: string; key: WalletKey },
    binding: { nonce?: string; aud?: string } = {},
  ) {
    const resolved = await resolveDcApiRequest(dcApiRequest, origin, [root]);
    const presentation = await presentWithKeyBinding(holder.credential, frame, holder.key, {
      nonce: binding.nonce ?? resolved.authorizationRequestPayload.nonce,
      aud: binding.aud ?? `origin:${origin}`,
    });
    return dcApiResponseData(resolved, { badge: [presentation] }, origin);
  }

  it('answers a signed request by default (x509_hash): the request object carries client_id and expected_origins, nothing of a redirect', async () => {
    const { id, clientId, dcApiRequest, body } = await open();
    expect(body.authorizationRequestUri).toBeUndefined();
    expect(dcApiRequest.protocol).toBe('openid4vp-v1-signed');
    expect(Object.keys(dcApiRequest.data)).toEqual(['request']);
    const jws = dcApiRequest.data.request as string;
    expect(decodeProtectedHeader(jws)).toMatchObject({ alg: 'ES256', typ: 'oauth-authz-req+jwt' });
    const claims = decodeJwt(jws);
    expect(claims).toMatchObject({
      client_id: clientId,
      expected_origins: [origin],
      response_type: 'vp_token',
      response_mode: 'dc_api.jwt',
      dcql_query: badgeQuery,
    });
    expect(claims).not.toHaveProperty('state');
    expect(claims).not.toHaveProperty('response_uri');
    expect(clientId).toMatch(/^x509_hash:/);
    // The wallet library verifies the chain and that the browser's origin is expected.
    const resolved = await resolveDcApiRequest(dcApiRequest, origin, [root]);
    expect(resolved.client).toMatchObject({ prefix: 'x509_hash', effective: clientId });
    const jwks = resolved.authorizationRequestPayload.client_metadata?.jwks as { keys: Json[] };
    expect(jwks.keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256', use: 'enc', alg: 'ECDH-ES' });
    await expect(resolveDcApiRequest(dcApiRequest, 'https://evil.example', [root])).rejects.toThrow(
      /expected_origins/,
    );
    await expect(resolveDcApiRequest(dcApiRequest, origin, [])).rejects.toThrow();
    const shown = (await read(id)).body;
    expect(shown).toMatchObject({ status: 'pending', expectedOrigins: [origin] });
    expect(shown.authorizationRequestUri).toBeUndefined();
    expect((shown.dcApiRequest as DcApiRequest).protocol).toBe('openid4vp-v1-signed');
  });

  it('verifies a signed dc_api.jwt answer bound to origin:<origin>, with one event, and then takes no more', async () => {
    const holder = await issue();
    const { id, dcApiRequest } = await open();
    const data = await answer(dcApiRequest, holder);
    expect(Object.keys(data)).toEqual(['response']);
    expect(decodeProtectedHeader(data.response as string)).toMatchObject({ alg: 'ECDH-ES' });
    const verified = await submit(id, { origin, data });
    expect(verified.status).toBe(200);
    expect(verified.body).toMatchObject({
      id,
      status: 'verified',
      responseMode: 'dc_api.jwt',
      expectedOrigins: [origin],
      refusedAnswers: 0,
      presented: { badge: [{ format: 'dc+sd-jwt', claims: { given_name: 'Erika' } }] },
    });
    expect(verified.body.dcApiRequest).toBeUndefined();
    expect((await read(id)).body).toMatchObject({ status: 'verified' });
    // A second answer after the conclusion changes nothing.
    const again = await submit(id, { origin, data });
    expectProblem(
      again,
      409,
      'PRESENTATION_REQUEST_NOT_PENDING',
      `${requests}/${id}/dc-api-response`,
    );
    const events = await requestEvents(service.dataSource, id);
    expect(events.map((event) => event.type)).toEqual(['presentation.verified']);
  });

  it('verifies an unsigned dc_api answer: no client_id sent, the origin is the client (OpenID4VP 1.0 A.2)', async () => {
    const holder = await issue();
    const { id, dcApiRequest } = await open({
      responseMode: 'dc_api',
      clientIdPrefix: 'decentralized_identifier',
    });
    expect(dcApiRequest.protocol).toBe('openid4vp-v1-unsigned');
    expect(dcApiRequest.data).toEqual({
      response_type: 'vp_token',
      response_mode: 'dc_api',
      nonce: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      // As the dcql library reads it: its defaults explicit (docs/oid4vp.md).
      dcql_query: {
        credentials: [
          {
            ...badgeQuery.credentials[0],
            multiple: false,
            require_cryptographic_holder_binding: true,
          },
        ],
      },
      client_metadata: { vp_formats_supported: expect.any(Object) },
    });
    const resolved = await resolveDcApiRequest(dcApiRequest, origin);
    expect(resolved.client).toMatchObject({ prefix: 'origin', effective: `origin:${origin}` });
    const data = await answer(dcApiRequest, holder, { aud: resolved.client.effective });
    expect(Object.keys(data)).toEqual(['vp_token']);
    const verified = await submit(id, { origin, data });
    expect(verified.status).toBe(200);
    expect(verified.body).toMatchObject({ status: 'verified', responseMode: 'dc_api' });
  });

  it('refuses and counts answers not bound to the request, leaving it pending, then verifies the right one', async () => {
    const holder = await issue();
    const { id, clientId, dcApiRequest } = await open();
    const other = await open();
    const otherNonce = (await resolveDcApiRequest(other.dcApiRequest, origin, [root]))
      .authorizationRequestPayload.nonce;
    const refusals: [string, Json, RegExp][] = [
      [
        'an origin it does not expect',
        { origin: 'https://evil.example', data: await answer(dcApiRequest, holder) },
        /origin "https:\/\/evil\.example" is not one this request expects/,
      ],
      [
        'another request’s nonce',
        { origin, data: await answer(dcApiRequest, holder, { nonce: otherNonce }) },
        /nonce/,
      ],
      [
        'the redirect flow’s audience, the client id',
        { origin, data: await answer(dcApiRequest, holder, { aud: clientId }) },
        /aud/,
      ],
      [
        'a dc_api.jwt answer in the clear',
        {
          origin,
          data: {
            vp_token: {
              badge: [
                await presentWithKeyBinding(holder.credential, frame, holder.key, {
                  nonce: (await resolveDcApiRequest(dcApiRequest, origin, [root]))
                    .authorizationRequestPayload.nonce,
                  aud: `origin:${origin}`,
                }),
              ],
            },
          },
        },
        /encrypted, in response/,
      ],
      [
        'a JWE to another request’s key',
        { origin, data: await answer(other.dcApiRequest, holder) },
        /decrypted/,
      ],
      ['the wallet’s error', { origin, data: { error: 'access_denied' } }, /access_denied/],
    ];
    let count = 0;
    for (const [, body, reason] of refusals) {
      const refused = await submit(id, body);
      const problem = expectProblem(
        refused,
        400,
        'PRESENTATION_ANSWER_REFUSED',
        `${requests}/${id}/dc-api-response`,
      );
      expect(problem.detail).toMatch(reason);
      count += 1;
      expect((await read(id)).body).toMatchObject({ status: 'pending', refusedAnswers: count });
    }
    expect(await requestEvents(service.dataSource, id)).toEqual([]);
    const verified = await submit(id, { origin, data: await answer(dcApiRequest, holder) });
    expect(verified.body).toMatchObject({ status: 'verified', refusedAnswers: refusals.length });
  });

  it('fails a bound answer that does not satisfy the query, once, with its event', async () => {
    const holder = await issue({ given_name: 'Erika' });
    const query = {
      credentials: [
        {
          ...badgeQuery.credentials[0],
          claims: [{ path: ['given_name'] }, { path: ['address', 'locality'] }],
        },
      ],
    };
    const { id, dcApiRequest } = await open({ dcqlQuery: query });
    const failed = await submit(id, { origin, data: await answer(dcApiRequest, holder) });
    expect(failed.status).toBe(200);
    expect(failed.body).toMatchObject({
      status: 'failed',
      outcome: { code: 'query_not_satisfied' },
      refusedAnswers: 0,
    });
    const events = await requestEvents(service.dataSource, id);
    expect(events.map((event) => event.type)).toEqual(['presentation.failed']);
  });

  it('keeps each tenant’s requests its own and asks for a token and the tenant header', async () => {
    const { id } = await open();
    const path = `${requests}/${id}/dc-api-response`;
    const body = { origin, data: { response: 'a.b.c.d.e' } };
    expectProblem(await submit(id, body, 'other'), 404, 'PRESENTATION_REQUEST_NOT_FOUND', path);
    expectProblem(
      await submit('not-a-uuid', body),
      404,
      'PRESENTATION_REQUEST_NOT_FOUND',
      `${requests}/not-a-uuid/dc-api-response`,
    );
    expectProblem(
      await service.request(path, {
        method: 'POST',
        as: 'anonymous',
        headers: { 'x-tenant-id': 'demo' },
        body,
      }),
      401,
      'UNAUTHORIZED',
      path,
    );
    expectProblem(
      await service.request(path, {
        method: 'POST',
        token: 'not.a.token',
        headers: { 'x-tenant-id': 'demo' },
        body,
      }),
      401,
      'UNAUTHORIZED',
      path,
    );
    expectProblem(
      await service.request(path, {
        method: 'POST',
        as: 'demo',
        headers: { 'x-tenant-id': 'other' },
        body,
      }),
      403,
      'FORBIDDEN',
      path,
    );
    expectProblem(
      await service.request(path, { method: 'POST', body }),
      400,
      'TENANT_HEADER_MISSING',
      path,
    );
    // None of these counted: they never reached the request.
    expect((await read(id)).body).toMatchObject({ status: 'pending', refusedAnswers: 0 });
    // The tenant's own agent-user may hand an answer over.
    const own = await service.request(path, {
      method: 'POST',
      as: 'demo',
      headers: { 'x-tenant-id': 'demo' },
      body,
    });
    expectProblem(own, 400, 'PRESENTATION_ANSWER_REFUSED', path);
  });

  it('keeps the channels apart: no QR code for a DC API request, no DC API answer for a redirect one', async () => {
    const dcApi = await open();
    expectProblem(
      await service.request(`${requests}/${dcApi.id}/qr.svg`, {
        headers: { 'x-tenant-id': 'demo' },
      }),
      409,
      'PRESENTATION_REQUEST_OTHER_MODE',
      `${requests}/${dcApi.id}/qr.svg`,
    );
    const redirect = await create({ responseMode: 'direct_post', expectedOrigins: undefined });
    expect(redirect.status).toBe(201);
    const redirectId = redirect.body.id as string;
    expectProblem(
      await submit(redirectId, { origin, data: { vp_token: {} } }),
      409,
      'PRESENTATION_REQUEST_OTHER_MODE',
      `${requests}/${redirectId}/dc-api-response`,
    );
    expect((await read(redirectId)).body).toMatchObject({
      expectedOrigins: null,
      refusedAnswers: 0,
    });
  });

  it('refuses bad DC API requests and answers with the field at fault, storing nothing', async () => {
    const before = (await service.request<Json>(requests, { headers: { 'x-tenant-id': 'demo' } }))
      .body.totalElements;
    const cases: [Json, string][] = [
      [{ expectedOrigins: undefined }, 'expectedOrigins'],
      [{ expectedOrigins: [] }, 'expectedOrigins'],
      [{ expectedOrigins: ['http://shop.example'] }, 'expectedOrigins'],
      [{ expectedOrigins: ['https://shop.example/path'] }, 'expectedOrigins'],
      [{ expectedOrigins: ['javascript:alert(1)'] }, 'expectedOrigins'],
      [
        { expectedOrigins: Array.from({ length: 11 }, (_, i) => `https://a${i}.example`) },
        'expectedOrigins',
      ],
      [{ redirectUri: 'https://shop.example/back' }, 'redirectUri'],
      [{ requestUriMethod: 'post' }, 'requestUriMethod'],
      [{ responseMode: 'direct_post' }, 'expectedOrigins'],
      [{ responseMode: 'dc_api.post' }, 'responseMode'],
    ];
    for (const [body, field] of cases) {
      expectFieldErrors(expectProblem(await create(body), 400, 'VALIDATION_FAILED', requests), [
        field,
      ]);
    }
    expect((await create({ expectedOrigins: ['http://localhost:3000'] })).status).toBe(201);
    const after = (await service.request<Json>(requests, { headers: { 'x-tenant-id': 'demo' } }))
      .body.totalElements;
    expect(after).toBe((before as number) + 1);
    const bad = await open();
    for (const body of [{ origin: 5, data: {} }, { origin, data: 'x' }, { data: {} }]) {
      expectProblem(
        await submit(bad.id, body),
        400,
        'VALIDATION_FAILED',
        `${requests}/${bad.id}/dc-api-response`,
      );
    }
    expect((await read(bad.id)).body).toMatchObject({ refusedAnswers: 0 });
  });
});
