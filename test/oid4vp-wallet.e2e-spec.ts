import { randomBytes } from 'node:crypto';
import { setGlobalConfig } from '@openid4vc/oauth2';
import { CompactEncrypt, decodeJwt, decodeProtectedHeader, generateKeyPair } from 'jose';
import { startTestService, type TestService } from './support/test-service.js';
import { sdJwtBadge } from './support/oid4vci-fixtures.js';
import { receiveCredentials } from './support/oid4vci-holder.js';
import { thumbprintOf, walletKey, type WalletKey } from './support/oid4vci-wallet.js';
import {
  answerRequest,
  disclose,
  presentWithKeyBinding,
  resolveRequest,
  withKeyBinding,
} from './support/oid4vp-holder.js';
import {
  insertRequest,
  requestEvents,
  requestRow,
  type TestRequest,
  type TestRequestInput,
} from './support/oid4vp-requests.js';

type Json = Record<string, unknown>;

const badgeQuery = {
  credentials: [
    {
      id: 'badge',
      format: 'dc+sd-jwt',
      meta: { vct_values: [sdJwtBadge.vct] },
      claims: [{ path: ['given_name'] }, { path: ['address', 'locality'] }],
    },
  ],
};
const claims = { given_name: 'Erika', address: { locality: 'Berlin' } };
const bothClaims = { given_name: true, address: { locality: true } };

/**
 * A tenant ("shop") as an OpenID4VP verifier, answered by OWF's wallet library with an SD-JWT VC that
 * another tenant ("univ") issued to that wallet over OpenID4VCI; the presentation made with
 * @sd-jwt/sd-jwt-vc. Requests are rows written as the requests API writes them.
 */
describe('OpenID4VP wallet endpoints, end to end', () => {
  let service: TestService;
  const logs: string[] = [];

  beforeAll(async () => {
    setGlobalConfig({ allowInsecureUrls: true });
    service = await startTestService({ logDestination: { write: (line) => logs.push(line) } });
    for (const id of ['univ', 'shop', 'other-shop'])
      await service.client().createTenant({ id, label: id });
    const made = await service.request('/ctrl/api/v1.0/oid4vci/credential-configurations/create', {
      method: 'POST',
      headers: { 'x-tenant-id': 'univ' },
      body: sdJwtBadge,
    });
    expect(made.status).toBe(201);
  });
  afterAll(async () => {
    setGlobalConfig({ allowInsecureUrls: false });
    await service.close();
  });

  const open = (input: Partial<TestRequestInput> = {}) =>
    insertRequest(service, { tenantId: 'shop', dcqlQuery: badgeQuery, ...input });

  /** A new SD-JWT VC from univ's issuer, bound to a new wallet key, and the offer that gave it. */
  async function issueBadge(): Promise<{ credential: string; key: WalletKey; offerId: string }> {
    const offer = await service.request<Json>('/ctrl/api/v1.0/oid4vci/offers', {
      method: 'POST',
      headers: { 'x-tenant-id': 'univ' },
      body: { credentialConfigurationId: sdJwtBadge.id, claims },
    });
    expect(offer.status).toBe(201);
    const key = await walletKey('ES256');
    const received = await receiveCredentials(offer.body.credentialOfferUri as string, [key]);
    return { credential: received.credentials[0] as string, key, offerId: offer.body.id as string };
  }

  /** A form posted to the response endpoint by hand. */
  async function post(url: string, form: Record<string, string>) {
    const response = await fetch(url, { method: 'POST', body: new URLSearchParams(form) });
    return { status: response.status, body: (await response.json()) as Json };
  }

  /** Posts a presentation of the badge in the clear with the request's state. */
  const answer = (request: TestRequest, presentation: string) =>
    post(request.responseUri, {
      vp_token: JSON.stringify({ badge: [presentation] }),
      state: request.state,
    });

  /** The row and the events, to show that a refused answer changed nothing. */
  const snapshot = async (request: TestRequest) => ({
    row: await requestRow(service, request.id),
    events: await requestEvents(service.dataSource, request.id),
  });

  const pending = { status: 'pending', outcomeCode: null, presented: null, claims: null };

  /** The snapshot with `count` more answers refused: what a counted refusal changes, and only that. */
  const counted = (before: Awaited<ReturnType<typeof snapshot>>, count: number) => ({
    ...before,
    row: { ...before.row, refusedAnswers: (before.row.refusedAnswers as number) + count },
  });

  describe('the request object', () => {
    it('is signed by the tenant’s DID key, and OWF’s wallet verifies it through the DID alone', async () => {
      const request = await open();
      const resolved = await resolveRequest(request.link);
      expect(resolved.client).toMatchObject({
        prefix: 'decentralized_identifier',
        identifier: request.clientId.replace('decentralized_identifier:', ''),
      });
      expect(resolved.jar?.signer).toMatchObject({ method: 'did' });
      expect(resolved.dcql?.query).toEqual(badgeQuery);
      expect(resolved.authorizationRequestPayload).toMatchObject({
        client_id: request.clientId,
        response_type: 'vp_token',
        response_mode: 'direct_post',
        response_uri: request.responseUri,
        nonce: request.nonce,
        state: request.state,
      });
    });

    it('is served as application/oauth-authz-req+jwt with the claims OpenID4VP 1.0 names', async () => {
      const expiresAt = new Date(Math.floor(Date.now() / 1000 + 300) * 1000);
      const request = await open({ expiresAt });
      const response = await fetch(request.requestUri);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/oauth-authz-req+jwt');
      expect(response.headers.get('cache-control')).toBe('no-store');
      const jwt = await response.text();
      const [did] = request.clientId.split(':').slice(1).join(':').split('#');
      const header = decodeProtectedHeader(jwt);
      expect(header).toMatchObject({ alg: 'EdDSA', typ: 'oauth-authz-req+jwt' });
      expect(header.kid).toMatch(new RegExp(`^${did}#z6Mk`));
      const payload = decodeJwt(jwt);
      expect(payload).toMatchObject({
        aud: 'https://self-issued.me/v2',
        exp: expiresAt.getTime() / 1000,
        dcql_query: badgeQuery,
        client_metadata: {
          vp_formats_supported: {
            'dc+sd-jwt': {
              'sd-jwt_alg_values': ['ES256', 'EdDSA', 'Ed25519'],
              'kb-jwt_alg_values': ['ES256', 'EdDSA', 'Ed25519'],
            },
            ldp_vc: { proof_type_values: ['DataIntegrityProof'] },
          },
        },
      });
      expect(payload.iat).toEqual(expect.any(Number));
      expect(payload.client_metadata).not.toHaveProperty('jwks');
    });

    it('offers the public half of a response key for direct_post.jwt', async () => {
      const request = await open({ responseMode: 'direct_post.jwt' });
      const payload = decodeJwt(await (await fetch(request.requestUri)).text());
      expect(payload.client_metadata).toMatchObject({
        jwks: { keys: [request.encryptionJwk] },
        encrypted_response_enc_values_supported: ['A128GCM', 'A256GCM'],
      });
      expect(JSON.stringify(payload)).not.toMatch(/"d":/);
    });

    it('answers a POST (request_uri_method=post), echoing the wallet nonce', async () => {
      const request = await open({ requestUriMethod: 'post' });
      expect(request.link).toContain('request_uri_method=post');
      const resolved = await resolveRequest(request.link);
      expect(resolved.authorizationRequestPayload.nonce).toBe(request.nonce);
      const walletNonce = randomBytes(16).toString('base64url');
      const response = await fetch(request.requestUri, {
        method: 'POST',
        body: new URLSearchParams({
          wallet_nonce: walletNonce,
          wallet_metadata: JSON.stringify({ vp_formats_supported: { 'dc+sd-jwt': {} } }),
        }),
      });
      expect(response.status).toBe(200);
      expect(decodeJwt(await response.text())).toMatchObject({ wallet_nonce: walletNonce });
    });

    it('refuses a POST whose form is not one', async () => {
      const request = await open({ requestUriMethod: 'post' });
      const refused = async (init: RequestInit) => {
        const response = await fetch(request.requestUri, { method: 'POST', ...init });
        expect(response.status).toBe(400);
        expect(await response.json()).toMatchObject({ error: 'invalid_request' });
      };
      await refused({ body: JSON.stringify({}), headers: { 'content-type': 'application/json' } });
      await refused({ body: new URLSearchParams({ wallet_metadata: '[1]' }) });
      await refused({ body: new URLSearchParams({ wallet_nonce: 'a b' }) });
      await refused({ body: new URLSearchParams({ wallet_metadata: 'x'.repeat(20_000) }) });
    });

    it('is 404 for an unknown reference, another tenant’s, an expired or an answered request', async () => {
      const notFound = async (url: string) => {
        const response = await fetch(url);
        expect(response.status).toBe(404);
        expect(await response.json()).toMatchObject({ error: 'invalid_request_uri' });
      };
      const request = await open();
      await notFound(request.requestUri.replace(request.reference, 'A'.repeat(43)));
      await notFound(request.requestUri.replace(request.reference, 'short'));
      await notFound(request.requestUri.replace('/shop/', '/other-shop/'));
      await notFound(request.requestUri.replace('/shop/', '/nobody/'));
      const expired = await open();
      await service.dataSource.query(
        `UPDATE oid4vp_request SET expires_at = now() - interval '1 second' WHERE id = $1`,
        [expired.id],
      );
      await notFound(expired.requestUri);
      const answered = await open();
      await service.dataSource.query(
        `UPDATE oid4vp_request SET status = 'failed', ended_at = now() WHERE id = $1`,
        [answered.id],
      );
      await notFound(answered.requestUri);
    });
  });

  describe('answers that cannot be tied to the request are refused and counted', () => {
    it('refuses another state (counted), another tenant’s or an unknown reference, an expired request', async () => {
      const request = await open();
      const before = await snapshot(request);
      expect(before.row).toMatchObject(pending);
      const token = JSON.stringify({ badge: ['eyJ.e30.x~'] });
      for (const [url, state] of [
        [request.responseUri, 'another-state'],
        [request.responseUri.replace('/shop/', '/other-shop/'), request.state],
        [request.responseUri.replace(request.reference, 'B'.repeat(43)), request.state],
      ]) {
        const refused = await post(url, { vp_token: token, state });
        expect(refused).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
      }
      await service.dataSource.query(
        `UPDATE oid4vp_request SET expires_at = now() - interval '1 second' WHERE id = $1`,
        [request.id],
      );
      expect(
        (await post(request.responseUri, { vp_token: token, state: request.state })).status,
      ).toBe(400);
      // Only the answer at this request's reference, while open, counts.
      expect(await snapshot(request)).toEqual(counted(before, 1));
    });

    it('refuses a JWE to another key, a plain answer to a direct_post.jwt request, and the reverse', async () => {
      const encrypted = await open({ responseMode: 'direct_post.jwt' });
      const before = await snapshot(encrypted);
      const { publicKey } = await generateKeyPair('ECDH-ES', { crv: 'P-256' });
      const jwe = await new CompactEncrypt(
        new TextEncoder().encode(JSON.stringify({ vp_token: {}, state: encrypted.state })),
      )
        .setProtectedHeader({ alg: 'ECDH-ES', enc: 'A128GCM', kid: encrypted.encryptionJwk!.kid })
        .encrypt(publicKey);
      const refused = await post(encrypted.responseUri, { response: jwe });
      expect(refused).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
      expect(refused.body.error_description).toMatch(/could not be decrypted/);
      expect(
        (await post(encrypted.responseUri, { vp_token: '{}', state: encrypted.state })).status,
      ).toBe(400);
      expect(await snapshot(encrypted)).toEqual(counted(before, 2));

      const plain = await open();
      const beforePlain = await snapshot(plain);
      expect((await post(plain.responseUri, { response: jwe })).status).toBe(400);
      expect(await snapshot(plain)).toEqual(counted(beforePlain, 1));
    });

    it('refuses a body that is not a bounded form', async () => {
      const request = await open();
      const before = await snapshot(request);
      const big = await post(request.responseUri, {
        vp_token: 'x'.repeat(600 * 1024),
        state: request.state,
      });
      expect(big.status).toBe(400);
      const json = await fetch(request.responseUri, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ vp_token: {}, state: request.state }),
      });
      expect(json.status).toBe(400);
      expect(await snapshot(request)).toEqual(before);
    });
  });

  describe('a malformed answer with the request’s state', () => {
    it('is refused and counted; the request stays pending, without an event', async () => {
      const request = await open();
      const before = await snapshot(request);
      const refused = await post(request.responseUri, {
        vp_token: 'not json',
        state: request.state,
      });
      expect(refused).toMatchObject({
        status: 400,
        body: { error: 'invalid_request', error_description: 'The vp_token is not JSON.' },
      });
      expect(await snapshot(request)).toEqual(counted(before, 1));
    });

    it('refuses an answer that names a credential query the request does not ask for', async () => {
      const request = await open();
      const refused = await post(request.responseUri, {
        vp_token: JSON.stringify({ diploma: ['x'] }),
        state: request.state,
      });
      expect(refused.status).toBe(400);
      expect(refused.body.error_description).toMatch(/does not ask for/);
      expect(await requestRow(service, request.id)).toMatchObject({
        ...pending,
        refusedAnswers: 1,
      });
    });
  });

  // Through the credentials feature's presentation verifier (WalletPresentationsService).
  describe('presentations verified', () => {
    it.each(['direct_post', 'direct_post.jwt'] as const)(
      'a wallet that has only the link answers by %s; the request reads verified with exactly the disclosed claims',
      async (responseMode) => {
        const { credential, key } = await issueBadge();
        const request = await open({ responseMode });
        const resolved = await resolveRequest(request.link);
        const presentation = await presentWithKeyBinding(credential, bothClaims, key, {
          nonce: resolved.authorizationRequestPayload.nonce,
          aud: resolved.authorizationRequestPayload.client_id!,
        });
        const response = await answerRequest(resolved, { badge: [presentation] });
        expect(response.status).toBe(200);
        expect(await response.json()).toEqual({});
        const { row, events } = await snapshot(request);
        expect(row).toMatchObject({
          status: 'verified',
          outcomeCode: null,
          presented: {
            badge: [
              {
                format: 'dc+sd-jwt',
                issuer: `${service.publicBaseUrl}/ctrl/oid4vci/univ`,
                vct: sdJwtBadge.vct,
                holderKeyThumbprint: await thumbprintOf(key),
                status: 'valid',
              },
            ],
          },
          claims: { badge: [claims] },
        });
        expect(JSON.stringify(row.presented)).not.toContain('Erika');
        expect(events.map((event) => event.type)).toEqual(['presentation.verified']);
        expect(events[0].body).not.toContain('Erika');

        // A replayed answer is refused and changes nothing.
        const replay = await answer(request, presentation);
        expect(replay.status).toBe(400);
        expect(await snapshot(request)).toEqual({ row, events });
      },
    );

    async function failsWith(
      code: string,
      make: (context: {
        credential: string;
        key: WalletKey;
        offerId: string;
        request: TestRequest;
      }) => Promise<string>,
    ) {
      const issued = await issueBadge();
      const request = await open();
      const failed = await answer(request, await make({ ...issued, request }));
      expect(failed).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
      const { row, events } = await snapshot(request);
      expect(row).toMatchObject({ status: 'failed', outcomeCode: code, claims: null });
      expect(failed.body.error_description).toBe(row.outcomeReason);
      expect(events.map((event) => event.type)).toEqual(['presentation.failed']);
    }

    /**
     * Answers what fails before the holder proved it answers this request: refused with the
     * verifier's reason, counted, the request pending; the holder's right answer then verifies it.
     */
    async function refusedWith(
      reason: RegExp,
      make: (context: {
        credential: string;
        key: WalletKey;
        request: TestRequest;
      }) => Promise<string>,
    ) {
      const issued = await issueBadge();
      const request = await open();
      const before = await snapshot(request);
      const refused = await answer(request, await make({ ...issued, request }));
      expect(refused).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
      expect(refused.body.error_description).toMatch(reason);
      expect(await snapshot(request)).toEqual(counted(before, 1));
      const right = await presentWithKeyBinding(issued.credential, bothClaims, issued.key, {
        nonce: request.nonce,
        aud: request.clientId,
      });
      expect((await answer(request, right)).status).toBe(200);
      expect(await requestRow(service, request.id)).toMatchObject({ status: 'verified' });
    }

    it('refuses a KB-JWT with another nonce (an answer to another request)', () =>
      refusedWith(/nonce is not this request/, async ({ credential, key, request }) =>
        withKeyBinding(await disclose(credential, bothClaims), key, {
          nonce: 'another-nonce',
          aud: request.clientId,
        }),
      ));

    it('refuses a KB-JWT for another audience', () =>
      refusedWith(/aud is not this request/, async ({ credential, key, request }) =>
        withKeyBinding(await disclose(credential, bothClaims), key, {
          nonce: request.nonce,
          aud: 'decentralized_identifier:did:key:z6MkSomeoneElse',
        }),
      ));

    it('refuses a KB-JWT signed by another key than the credential’s', () =>
      refusedWith(/not signed by the credential's holder key/, async ({ credential, request }) =>
        withKeyBinding(await disclose(credential, bothClaims), await walletKey('ES256'), {
          nonce: request.nonce,
          aud: request.clientId,
        }),
      ));

    it('refuses a tampered disclosure', () =>
      refusedWith(/disclosure/, async ({ credential, key, request }) => {
        const [jwt, ...disclosures] = (await disclose(credential, bothClaims)).split('~');
        const forged = disclosures.map((disclosure) => {
          if (disclosure === '') return disclosure;
          const decoded = JSON.parse(Buffer.from(disclosure, 'base64url').toString()) as unknown[];
          if (decoded[1] !== 'given_name') return disclosure;
          return Buffer.from(JSON.stringify([decoded[0], 'given_name', 'Mallory'])).toString(
            'base64url',
          );
        });
        return withKeyBinding([jwt, ...forged].join('~'), key, {
          nonce: request.nonce,
          aud: request.clientId,
        });
      }));

    it('fails a presentation without a requested claim, naming its path', async () => {
      await failsWith('query_not_satisfied', ({ credential, key, request }) =>
        presentWithKeyBinding(credential, { given_name: true }, key, {
          nonce: request.nonce,
          aud: request.clientId,
        }),
      );
    });

    it('fails a revoked credential', () =>
      failsWith('credential_revoked', async ({ credential, key, offerId, request }) => {
        const { credentialIds } = (
          await service.request<{ credentialIds: string[] }>(
            `/ctrl/api/v1.0/oid4vci/offers/${offerId}`,
            { headers: { 'x-tenant-id': 'univ' } },
          )
        ).body;
        const revoked = await service.request('/ctrl/api/v1.0/credentials/status', {
          method: 'POST',
          headers: { 'x-tenant-id': 'univ' },
          body: {
            credentialId: credentialIds[0],
            credentialStatus: { statusPurpose: 'revocation' },
          },
        });
        expect(revoked.status).toBe(204);
        return presentWithKeyBinding(credential, bothClaims, key, {
          nonce: request.nonce,
          aud: request.clientId,
        });
      }));
  });

  it('keeps references, claims and keys out of its log lines', () => {
    const text = logs.join('\n');
    expect(text).toContain('/ctrl/oid4vp/shop/requests/:reference');
    expect(text).not.toMatch(/\/ctrl\/oid4vp\/[^/]+\/requests\/[A-Za-z0-9_-]{43}/);
    expect(text).not.toContain('Erika');
  });
});
