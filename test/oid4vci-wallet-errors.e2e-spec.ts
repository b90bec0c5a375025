import fc from 'fast-check';
import { createHash, randomBytes } from 'node:crypto';
import { OfferExpiry } from '../src/oid4vci/offers/offer-expiry.js';
import { openClaims } from '../src/oid4vci/offers/offer-claims.js';
import { OfferRepository } from '../src/oid4vci/offers/offer.repository.js';
import { KeyVault } from '../src/secrets/key-vault.js';
import {
  call,
  postForm,
  startTestService,
  type ApiResponse,
  type TestService,
} from './support/test-service.js';
import { ldpBadge, sdJwtBadge } from './support/oid4vci-fixtures.js';
import {
  fakeHolderIssuance,
  insertOffer,
  offerRow,
  type HolderIssuanceCall,
} from './support/oid4vci-offers.js';
import {
  didJwkOf,
  dpopProof,
  keyProof,
  walletKey,
  type WalletKey,
} from './support/oid4vci-wallet.js';

type Json = Record<string, unknown>;
const preAuthorizedGrant = 'urn:ietf:params:oauth:grant-type:pre-authorized_code';
const claims = { given_name: 'Ada' };

/**
 * Every refusal of the wallet endpoints over raw HTTP: OAuth errors (RFC 6749 §5.2, RFC 6750 §3.1,
 * OpenID4VCI 1.0 §8.3.1.2, §11.3) with `Cache-Control: no-store`, never a 5xx; and the misuse of codes,
 * tokens, nonces and paths, with the two races (docs/oid4vci.md).
 */
describe('OpenID4VCI wallet endpoints refuse', () => {
  let service: TestService;
  let issued: HolderIssuanceCall[];
  let offset = 0;
  const issuerOf = (tenantId: string) => `${service.publicBaseUrl}/ctrl/oid4vci/${tenantId}`;
  const path = (tenantId: string, endpoint: string) => `/ctrl/oid4vci/${tenantId}/${endpoint}`;

  beforeAll(async () => {
    service = await startTestService({ clock: () => Date.now() + offset });
    issued = fakeHolderIssuance(service);
    await service.client().createTenant({ id: 'acme', label: 'ACME Corp' });
    await service.client().createTenant({ id: 'other', label: 'Other' });
    await service.client().createCredentialConfiguration('acme', sdJwtBadge);
    await service.client().createCredentialConfiguration('acme', ldpBadge);
  });
  afterEach(() => {
    offset = 0;
  });
  afterAll(async () => {
    await service.close();
  });

  function expectError(response: ApiResponse, status: number, error: string): void {
    expect({ status: response.status, body: response.body }).toEqual({
      status,
      body: { error, error_description: expect.any(String) },
    });
    expect(response.headers.get('cache-control')).toBe('no-store');
    if (status === 401)
      expect(response.headers.get('www-authenticate')).toMatch(
        new RegExp(`^(Bearer|DPoP) .*error="${error}"`),
      );
  }

  const postToken = (tenantId: string, fields: Record<string, string>, headers = {}) =>
    postForm(service.url, path(tenantId, 'token'), fields, headers);

  const newOffer = (options: { txCode?: string; expiresAt?: Date; ldp?: boolean } = {}) =>
    insertOffer(service, {
      tenantId: 'acme',
      configuration: options.ldp === true ? ldpBadge : sdJwtBadge,
      claims: options.ldp === true ? { name: 'Ada' } : claims,
      txCode: options.txCode,
      expiresAt: options.expiresAt,
    });

  /** An accepted offer's access token, DPoP-bound when a key is given. */
  async function accessToken(
    dpopKey?: WalletKey,
    ldp = false,
  ): Promise<{ token: string; offerId: string }> {
    const offer = await newOffer({ ldp });
    const headers =
      dpopKey === undefined
        ? {}
        : { DPoP: await dpopProof(dpopKey, { htu: `${issuerOf('acme')}/token` }) };
    const answer = await postToken(
      'acme',
      { grant_type: preAuthorizedGrant, 'pre-authorized_code': offer.preAuthorizedCode },
      headers,
    );
    expect(answer.status).toBe(200);
    return { token: (answer.body as { access_token: string }).access_token, offerId: offer.id };
  }

  async function nonce(tenantId = 'acme'): Promise<string> {
    const answer = await call<{ c_nonce: string }>(service.url, path(tenantId, 'nonce'), {
      method: 'POST',
    });
    expect(answer.status).toBe(200);
    return answer.body.c_nonce;
  }

  async function postCredential(
    token: string | undefined,
    body: unknown,
    options: { tenantId?: string; scheme?: string; dpop?: string; contentType?: string } = {},
  ): Promise<ApiResponse> {
    const headers: Record<string, string> = {
      'content-type': options.contentType ?? 'application/json',
    };
    if (token !== undefined) headers.authorization = `${options.scheme ?? 'Bearer'} ${token}`;
    if (options.dpop !== undefined) headers.dpop = options.dpop;
    return call(service.url, path(options.tenantId ?? 'acme', 'credential'), {
      method: 'POST',
      headers,
      body,
    });
  }

  async function proofsOf(keys: WalletKey[], options: { nonce?: string; aud?: string } = {}) {
    const c = options.nonce ?? (await nonce());
    return Promise.all(
      keys.map((key) => keyProof(key, { aud: options.aud ?? issuerOf('acme'), nonce: c })),
    );
  }

  const requestOf = (proofs: string[], configurationId = sdJwtBadge.id): Json => ({
    credential_configuration_id: configurationId,
    proofs: { jwt: proofs },
  });

  describe('at the token endpoint', () => {
    it('a grant type other than the pre-authorized code, or none', async () => {
      expectError(
        await postToken('acme', { grant_type: 'authorization_code', code: 'x' }),
        400,
        'unsupported_grant_type',
      );
      expectError(await postToken('acme', { 'pre-authorized_code': 'x' }), 400, 'invalid_request');
    });

    it('a missing code, a body that is not a form, a repeated or oversized parameter', async () => {
      expectError(
        await postToken('acme', { grant_type: preAuthorizedGrant }),
        400,
        'invalid_request',
      );
      const json = await call(service.url, path('acme', 'token'), {
        method: 'POST',
        body: { grant_type: preAuthorizedGrant, 'pre-authorized_code': 'x' },
      });
      expectError(json, 400, 'invalid_request');
      const twice = await postForm(service.url, path('acme', 'token'), [
        ['grant_type', preAuthorizedGrant],
        ['pre-authorized_code', 'a'],
        ['pre-authorized_code', 'b'],
      ]);
      expectError(twice, 400, 'invalid_request');
      const huge = await postToken('acme', {
        grant_type: preAuthorizedGrant,
        'pre-authorized_code': 'x'.repeat(20_000),
      });
      expectError(huge, 400, 'invalid_request');
      const empty = await call(service.url, path('acme', 'token'), { method: 'POST' });
      expectError(empty, 400, 'invalid_request');
    });

    it('an unknown code, another tenant’s, an expired offer’s, a used one', async () => {
      const grant = (code: string) => ({
        grant_type: preAuthorizedGrant,
        'pre-authorized_code': code,
      });
      expectError(
        await postToken('acme', grant(randomBytes(32).toString('base64url'))),
        400,
        'invalid_grant',
      );
      const offer = await newOffer();
      expectError(await postToken('other', grant(offer.preAuthorizedCode)), 400, 'invalid_grant');
      expect((await offerRow(service.dataSource, offer.id)).status).toBe('offered');
      const expired = await newOffer({ expiresAt: new Date(Date.now() - 1000) });
      expectError(await postToken('acme', grant(expired.preAuthorizedCode)), 400, 'invalid_grant');
      expect((await postToken('acme', grant(offer.preAuthorizedCode))).status).toBe(200);
      expectError(await postToken('acme', grant(offer.preAuthorizedCode)), 400, 'invalid_grant');
    });

    it('a missing or unexpected transaction code, and a wrong one', async () => {
      const withCode = await newOffer({ txCode: '1234' });
      const grant = {
        grant_type: preAuthorizedGrant,
        'pre-authorized_code': withCode.preAuthorizedCode,
      };
      expectError(await postToken('acme', grant), 400, 'invalid_request');
      expectError(await postToken('acme', { ...grant, tx_code: '9999' }), 400, 'invalid_grant');
      expect(await offerRow(service.dataSource, withCode.id)).toMatchObject({
        status: 'offered',
        txCodeFailures: 1,
      });
      const ok = await postToken('acme', { ...grant, tx_code: '1234' });
      expect(ok.status).toBe(200);
      expect(await offerRow(service.dataSource, withCode.id)).toMatchObject({
        status: 'accepted',
        txCodeFailures: 1,
      });
      const without = await newOffer();
      expectError(
        await postToken('acme', {
          grant_type: preAuthorizedGrant,
          'pre-authorized_code': without.preAuthorizedCode,
          tx_code: '1',
        }),
        400,
        'invalid_request',
      );
    });

    it('after five wrong transaction codes, even the right one: the offer failed and its claims are gone', async () => {
      const offer = await newOffer({ txCode: '1234' });
      const grant = {
        grant_type: preAuthorizedGrant,
        'pre-authorized_code': offer.preAuthorizedCode,
      };
      // Parallel guesses share the same five tries.
      const guesses = await Promise.all(
        ['0000', '0001', '0002', '0003', '0004', '0005', '0006'].map((tx) =>
          postToken('acme', { ...grant, tx_code: tx }),
        ),
      );
      for (const guess of guesses) expectError(guess, 400, 'invalid_grant');
      expect(await offerRow(service.dataSource, offer.id)).toMatchObject({
        status: 'failed',
        failure: 'tx_code_tries',
        claims: null,
        txCodeFailures: 5,
      });
      expectError(await postToken('acme', { ...grant, tx_code: '1234' }), 400, 'invalid_grant');
    });

    it('a bad DPoP proof', async () => {
      const key = await walletKey();
      const htu = `${issuerOf('acme')}/token`;
      const bad = [
        await dpopProof(key, { htu: `${issuerOf('other')}/token` }),
        await dpopProof(key, { htu, payload: { htm: 'GET' } }),
        await dpopProof(key, { htu, header: { typ: 'JWT' } }),
        await dpopProof(key, { htu, payload: { iat: Math.floor(Date.now() / 1000) - 3600 } }),
        await dpopProof(key, { htu, payload: { jti: undefined } }),
        await dpopProof(key, { htu, header: { jwk: { ...key.publicJwk, d: 'AAAA' } } }),
        await dpopProof(key, { htu, header: { jwk: (await walletKey()).publicJwk } }),
        'not-a-jwt',
      ];
      for (const proof of bad) {
        const offer = await newOffer();
        const answer = await postToken(
          'acme',
          { grant_type: preAuthorizedGrant, 'pre-authorized_code': offer.preAuthorizedCode },
          { DPoP: proof },
        );
        expectError(answer, 400, 'invalid_dpop_proof');
        expect((await offerRow(service.dataSource, offer.id)).status).toBe('offered');
      }
    });

    it('the second of two concurrent uses of one code', async () => {
      const offer = await newOffer();
      const grant = {
        grant_type: preAuthorizedGrant,
        'pre-authorized_code': offer.preAuthorizedCode,
      };
      const answers = await Promise.all([postToken('acme', grant), postToken('acme', grant)]);
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 400]);
      const events = await service.dataSource.query(
        `SELECT 1 FROM webhook_event WHERE type = 'oid4vci.offer.accepted' AND body::jsonb->'data'->>'offerId' = $1`,
        [offer.id],
      );
      expect(events).toHaveLength(1);
    });
  });

  describe('at the nonce endpoint', () => {
    it('an unknown tenant (404) and a bad tenant id (400)', async () => {
      const unknown = await call(service.url, path('nobody', 'nonce'), { method: 'POST' });
      expect(unknown.status).toBe(404);
      const bad = await call(service.url, path('-bad', 'nonce'), { method: 'POST' });
      expect(bad.status).toBe(400);
    });
  });

  describe('at the credential endpoint', () => {
    it('no token, an unknown one, another tenant’s path, a wrong scheme', async () => {
      const { token } = await accessToken();
      const body = requestOf(await proofsOf([await walletKey()]));
      expectError(await postCredential(undefined, body), 401, 'invalid_token');
      expectError(
        await postCredential(randomBytes(32).toString('base64url'), body),
        401,
        'invalid_token',
      );
      expectError(await postCredential(token, body, { tenantId: 'other' }), 401, 'invalid_token');
      expectError(await postCredential(token, body, { scheme: 'Basic' }), 401, 'invalid_token');
      // A Bearer token sent as DPoP, with a proof of any key.
      const key = await walletKey();
      const dpop = await dpopProof(key, {
        htu: `${issuerOf('acme')}/credential`,
        accessToken: token,
      });
      expectError(
        await postCredential(token, body, { scheme: 'DPoP', dpop }),
        401,
        'invalid_token',
      );
      // Still good after all of these.
      expect((await postCredential(token, body)).status).toBe(200);
    });

    it('an expired token', async () => {
      const { token } = await accessToken();
      offset = 301_000;
      const key = await walletKey();
      const c = await nonce();
      const proof = await keyProof(key, {
        aud: issuerOf('acme'),
        nonce: c,
        iat: Math.floor((Date.now() + offset) / 1000),
      });
      expectError(await postCredential(token, requestOf([proof])), 401, 'invalid_token');
    });

    it('a DPoP-bound token as Bearer, without a proof, with another key’s proof or a wrong ath', async () => {
      const dpopKey = await walletKey();
      const { token } = await accessToken(dpopKey);
      const htu = `${issuerOf('acme')}/credential`;
      const body = requestOf(await proofsOf([await walletKey()]));
      expectError(await postCredential(token, body), 401, 'invalid_token');
      expectError(await postCredential(token, body, { scheme: 'DPoP' }), 401, 'invalid_dpop_proof');
      const otherKey = await dpopProof(await walletKey(), { htu, accessToken: token });
      expectError(
        await postCredential(token, body, { scheme: 'DPoP', dpop: otherKey }),
        401,
        'invalid_token',
      );
      const wrongAth = await dpopProof(dpopKey, { htu, accessToken: 'another' });
      expectError(
        await postCredential(token, body, { scheme: 'DPoP', dpop: wrongAth }),
        401,
        'invalid_dpop_proof',
      );
      const wrongHtu = await dpopProof(dpopKey, {
        htu: `${issuerOf('acme')}/token`,
        accessToken: token,
      });
      expectError(
        await postCredential(token, body, { scheme: 'DPoP', dpop: wrongHtu }),
        401,
        'invalid_dpop_proof',
      );
      const good = await dpopProof(dpopKey, { htu, accessToken: token });
      expect((await postCredential(token, body, { scheme: 'DPoP', dpop: good })).status).toBe(200);
    });

    it('requests of the wrong shape', async () => {
      const { token, offerId } = await accessToken();
      const proofs = await proofsOf([await walletKey()]);
      expectError(
        await postCredential(token, { credential_identifier: 'x', proofs: { jwt: proofs } }),
        400,
        'invalid_credential_request',
      );
      expectError(
        await postCredential(token, { proofs: { jwt: proofs } }),
        400,
        'invalid_credential_request',
      );
      expectError(
        await postCredential(token, requestOf(proofs, ldpBadge.id)),
        400,
        'unknown_credential_configuration',
      );
      expectError(
        await postCredential(token, { credential_configuration_id: sdJwtBadge.id }),
        400,
        'invalid_proof',
      );
      // The drafts' single proof is taken (a wallet may send it), but not beside proofs.
      expectError(
        await postCredential(token, {
          credential_configuration_id: sdJwtBadge.id,
          proof: { proof_type: 'jwt', jwt: proofs[0] },
          proofs: { jwt: proofs },
        }),
        400,
        'invalid_credential_request',
      );
      expectError(
        await postCredential(token, {
          credential_configuration_id: sdJwtBadge.id,
          proof: { proof_type: 'ldp_vp', jwt: proofs[0] },
        }),
        400,
        'invalid_proof',
      );
      expectError(
        await postCredential(token, {
          credential_configuration_id: sdJwtBadge.id,
          proofs: { jwt: [] },
        }),
        400,
        'invalid_proof',
      );
      expectError(
        await postCredential(token, {
          credential_configuration_id: sdJwtBadge.id,
          proofs: { jwt: [1] },
        }),
        400,
        'invalid_proof',
      );
      expectError(
        await postCredential(token, {
          credential_configuration_id: sdJwtBadge.id,
          proofs: { ldp_vp: [{}] },
        }),
        400,
        'invalid_proof',
      );
      const three = await proofsOf([await walletKey(), await walletKey(), await walletKey()]);
      expectError(await postCredential(token, requestOf(three)), 400, 'invalid_credential_request');
      expectError(
        await postCredential(token, '{"credential_configuration_id":', {}),
        400,
        'invalid_credential_request',
      );
      expectError(await postCredential(token, '[]'), 400, 'invalid_credential_request');
      expectError(
        await postCredential(token, 'a=b', { contentType: 'application/x-www-form-urlencoded' }),
        400,
        'invalid_credential_request',
      );
      expectError(
        await postCredential(token, { pad: 'x'.repeat(40_000) }),
        400,
        'invalid_credential_request',
      );
      // Nothing issued; the token still works.
      expect((await offerRow(service.dataSource, offerId)).status).toBe('accepted');
      expect((await postCredential(token, requestOf(proofs))).status).toBe(200);
    });

    it('bad proofs', async () => {
      const { token } = await accessToken();
      const key = await walletKey();
      const c = await nonce();
      const aud = issuerOf('acme');
      const bad = [
        await keyProof(key, { aud: issuerOf('other'), nonce: c }),
        await keyProof(key, { aud, nonce: c, header: { typ: 'JWT' } }),
        await keyProof(key, { aud, nonce: c, iat: Math.floor(Date.now() / 1000) - 3600 }),
        await keyProof(key, { aud, nonce: c, iat: Math.floor(Date.now() / 1000) + 3600 }),
        await keyProof(key, { aud, nonce: c, header: { jwk: { ...key.publicJwk, d: 'AAAA' } } }),
        await keyProof(key, { aud, nonce: c, header: { kid: `${didJwkOf(key)}#0` } }),
        await keyProof(key, { aud, nonce: c, header: { jwk: (await walletKey()).publicJwk } }),
        await keyProof(key, { aud }),
        // An sd-jwt configuration binds to JWKs only.
        await keyProof(key, {
          aud,
          nonce: c,
          header: { jwk: undefined, kid: `${didJwkOf(key)}#0` },
        }),
        'eyJhbGciOiJub25lIn0.e30.',
      ];
      for (const proof of bad)
        expectError(await postCredential(token, requestOf([proof])), 400, 'invalid_proof');
      const mixed = [
        await keyProof(key, { aud, nonce: c }),
        await keyProof(key, { aud, nonce: await nonce() }),
      ];
      expectError(await postCredential(token, requestOf(mixed)), 400, 'invalid_proof');
      expect(
        issued.filter((entry) => entry.holders.some((h) => h.jwk.x === key.publicJwk.x)),
      ).toEqual([]);
      // The nonce was not spent by the refusals.
      expect(
        (await postCredential(token, requestOf([await keyProof(key, { aud, nonce: c })]))).status,
      ).toBe(200);
    });

    it('DID kids that are not did:key or did:jwk URLs of the signing key', async () => {
      const key = await walletKey();
      const { token } = await accessToken(undefined, true);
      const c = await nonce();
      const aud = issuerOf('acme');
      const bad = [
        `${didJwkOf(key)}`,
        `${didJwkOf(key)}#1`,
        `did:web:example.com#key-1`,
        `${didJwkOf(await walletKey())}#0`,
        `did:key:zDnaeWgbpcUat3VPa1GmjmUvJNvFE9mV6oXQzuhcWkGzLB9Hm#zDnaeWgbpcUat3VPa1GmjmUvJNvFE9mV6oXQzuhcWkGzLB9Hm`,
      ];
      for (const kid of [...bad, 42, { id: 'did:jwk:e30#0' }, null]) {
        const proof = await keyProof(key, { aud, nonce: c, header: { jwk: undefined, kid } });
        expectError(
          await postCredential(token, requestOf([proof], ldpBadge.id)),
          400,
          'invalid_proof',
        );
      }
    });

    it('an unknown, another tenant’s, expired or spent nonce', async () => {
      const key = await walletKey();
      const aud = issuerOf('acme');
      const { token } = await accessToken();
      const proofWith = (c: string) => keyProof(key, { aud, nonce: c });
      expectError(
        await postCredential(token, requestOf([await proofWith('unknown')])),
        400,
        'invalid_nonce',
      );
      expectError(
        await postCredential(token, requestOf([await proofWith(await nonce('other'))])),
        400,
        'invalid_nonce',
      );
      const stale = await nonce();
      // Aged in the table: moving the clock past it would expire the token first.
      await service.dataSource.query(
        `UPDATE oid4vci_nonce SET expires_at = now() - interval '1 second' WHERE expires_at > now()`,
      );
      expectError(
        await postCredential(token, requestOf([await proofWith(stale)])),
        400,
        'invalid_nonce',
      );
      const c = await nonce();
      expect((await postCredential(token, requestOf([await proofWith(c)]))).status).toBe(200);
      const { token: second } = await accessToken();
      expectError(
        await postCredential(second, requestOf([await proofWith(c)])),
        400,
        'invalid_nonce',
      );
    });

    it('a token used once already', async () => {
      const { token } = await accessToken();
      expect(
        (await postCredential(token, requestOf(await proofsOf([await walletKey()])))).status,
      ).toBe(200);
      expectError(
        await postCredential(token, requestOf(await proofsOf([await walletKey()]))),
        401,
        'invalid_token',
      );
    });

    it('the second of two concurrent requests with one nonce', async () => {
      const [first, second] = [await accessToken(), await accessToken()];
      const c = await nonce();
      const before = issued.length;
      const answers = await Promise.all(
        [first, second].map(async ({ token }) =>
          postCredential(token, requestOf(await proofsOf([await walletKey()], { nonce: c }))),
        ),
      );
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 400]);
      expectError(
        answers.find((answer) => answer.status === 400)!,
        400,
        'invalid_nonce',
      );
      const statuses = await Promise.all(
        [first, second].map(
          async ({ offerId }) => (await offerRow(service.dataSource, offerId)).status,
        ),
      );
      expect(statuses.sort()).toEqual(['accepted', 'issued']);
      // The losing request's issuance was rolled back with it, whether or not it got that far.
      expect(issued.length - before).toBeGreaterThanOrEqual(1);
    });
  });

  describe('hostile input', () => {
    const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    /** A JWS-shaped string with any header and payload, partly ours so that checks run deep. */
    const anyJwt = fc
      .tuple(
        fc.record(
          {
            alg: fc.oneof(fc.constantFrom('ES256', 'EdDSA', 'none', 'HS256'), fc.jsonValue()),
            typ: fc.oneof(fc.constantFrom('openid4vci-proof+jwt', 'dpop+jwt'), fc.jsonValue()),
            jwk: fc.oneof(
              fc.record({
                kty: fc.constantFrom('EC', 'OKP', 'RSA'),
                crv: fc.constantFrom('P-256', 'Ed25519', 'X25519'),
                x: fc.oneof(fc.string(), fc.base64String()),
                y: fc.string(),
              }),
              fc.jsonValue(),
            ),
            kid: fc.oneof(
              fc.constantFrom('did:key:z6Mk#z6Mk', 'did:jwk:e30#0', 'did:jwk:!!#0'),
              fc.jsonValue(),
            ),
          },
          { requiredKeys: [] },
        ),
        fc.jsonValue(),
        fc.string({ maxLength: 90 }),
      )
      .map(([header, payload, signature]) => `${b64(header)}.${b64(payload)}.${signature}`);

    it('never answers 5xx nor anything but an OAuth error, whatever the token request', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.dictionary(
            fc.constantFrom('grant_type', 'pre-authorized_code', 'tx_code', 'x'),
            fc.string(),
          ),
          fc.option(anyJwt, { nil: undefined }),
          async (fields, dpop) => {
            const answer = await postToken(
              'acme',
              fields,
              dpop === undefined ? {} : { DPoP: dpop },
            );
            expect(answer.status).toBe(400);
            expect(answer.body).toEqual({
              error: expect.any(String),
              error_description: expect.any(String),
            });
          },
        ),
        { numRuns: 60 },
      );
    });

    it('never answers 5xx, and issues nothing, whatever the credential request', async () => {
      const { token, offerId } = await accessToken();
      const before = issued.length;
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(
            fc.jsonValue(),
            fc.record({
              credential_configuration_id: fc.oneof(fc.constant(sdJwtBadge.id), fc.jsonValue()),
              proofs: fc.oneof(
                fc.record({ jwt: fc.array(anyJwt, { maxLength: 3 }) }),
                fc.jsonValue(),
              ),
            }),
          ),
          async (body) => {
            const answer = await postCredential(token, JSON.stringify(body));
            expect(answer.status).toBe(400);
            expect(answer.body).toEqual({
              error: expect.any(String),
              error_description: expect.any(String),
            });
          },
        ),
        { numRuns: 80 },
      );
      expect(issued.length).toBe(before);
      expect((await offerRow(service.dataSource, offerId)).status).toBe('accepted');
    });

    it('never answers 5xx to any proof of an ldp_vc request, whose keys may be DIDs', async () => {
      const { token } = await accessToken(undefined, true);
      const before = issued.length;
      await fc.assert(
        fc.asyncProperty(fc.array(anyJwt, { minLength: 1, maxLength: 2 }), async (proofs) => {
          const answer = await postCredential(token, requestOf(proofs, ldpBadge.id));
          expect(answer.status).toBe(400);
          expect(answer.body).toMatchObject({ error: 'invalid_proof' });
        }),
        { numRuns: 80 },
      );
      expect(issued.length).toBe(before);
    });

    it('never answers 5xx, whatever the Authorization and DPoP headers', async () => {
      const dpopKey = await walletKey();
      const { token } = await accessToken(dpopKey);
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(
            fc.constant(`DPoP ${token}`),
            fc.constant(`Bearer ${token}`),
            fc.string().map((text) => `DPoP ${text}`),
            fc.string(),
          ),
          fc.option(anyJwt, { nil: undefined }),
          async (authorization, dpop) => {
            const answer = await call(service.url, path('acme', 'credential'), {
              method: 'POST',
              headers: {
                authorization: authorization.replace(/[^\x20-\x7e]/g, ''),
                ...(dpop === undefined ? {} : { dpop }),
              },
              body: requestOf([]),
            });
            expect(answer.status).toBe(401);
          },
        ),
        { numRuns: 60 },
      );
    });
  });

  describe('at the notification endpoint', () => {
    async function issuedOffer(): Promise<{ token: string; notificationId: string }> {
      const { token } = await accessToken();
      const answer = await postCredential(token, requestOf(await proofsOf([await walletKey()])));
      expect(answer.status).toBe(200);
      return {
        token,
        notificationId: (answer.body as { notification_id: string }).notification_id,
      };
    }
    const notify = (token: string | undefined, body: unknown, tenantId = 'acme') =>
      call(service.url, path(tenantId, 'notification'), {
        method: 'POST',
        headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
        body,
      });

    it('a token of an offer not issued, none, another tenant’s path', async () => {
      const { token } = await accessToken();
      expectError(
        await notify(token, { notification_id: 'x', event: 'credential_accepted' }),
        401,
        'invalid_token',
      );
      const done = await issuedOffer();
      const body = { notification_id: done.notificationId, event: 'credential_accepted' };
      expectError(await notify(undefined, body), 401, 'invalid_token');
      expectError(await notify(done.token, body, 'other'), 401, 'invalid_token');
    });

    it('an unknown notification id, a bad event or description, a body that is no object', async () => {
      const { token, notificationId } = await issuedOffer();
      expectError(
        await notify(token, { notification_id: 'nope', event: 'credential_accepted' }),
        400,
        'invalid_notification_id',
      );
      expectError(
        await notify(token, { notification_id: notificationId, event: 'credential_lost' }),
        400,
        'invalid_notification_request',
      );
      expectError(
        await notify(token, { notification_id: notificationId }),
        400,
        'invalid_notification_request',
      );
      expectError(
        await notify(token, { event: 'credential_accepted' }),
        400,
        'invalid_notification_request',
      );
      expectError(
        await notify(token, {
          notification_id: notificationId,
          event: 'credential_failure',
          event_description: 'ä',
        }),
        400,
        'invalid_notification_request',
      );
      expectError(await notify(token, '[1]'), 400, 'invalid_notification_request');
      const ok = await notify(token, {
        notification_id: notificationId,
        event: 'credential_failure',
        event_description: 'Could not store',
      });
      expect(ok.status).toBe(204);
    });

    it('after the token expired', async () => {
      const { token, notificationId } = await issuedOffer();
      offset = 301_000;
      expectError(
        await notify(token, { notification_id: notificationId, event: 'credential_accepted' }),
        401,
        'invalid_token',
      );
    });
  });

  describe('when the offers API ended the offer, or its time ran out', () => {
    const offersApi = '/ctrl/api/v1.0/oid4vci/offers';
    const asAdmin = { as: 'admin' as const, headers: { 'x-tenant-id': 'acme' } };

    /** An offer made through the offers API, as an issuer's back office makes it. */
    async function apiOffer(): Promise<{ id: string; code: string }> {
      const answer = await service.request<{
        id: string;
        credentialOffer: { grants: Record<string, { 'pre-authorized_code': string }> };
      }>(offersApi, {
        method: 'POST',
        ...asAdmin,
        body: { credentialConfigurationId: sdJwtBadge.id, claims },
      });
      expect(answer.status).toBe(201);
      return {
        id: answer.body.id,
        code: answer.body.credentialOffer.grants[preAuthorizedGrant]['pre-authorized_code'],
      };
    }
    const withdraw = (id: string) =>
      service.request<Json>(`${offersApi}/${id}/withdraw`, { method: 'POST', ...asAdmin });
    const tokenFor = (code: string) =>
      postToken('acme', { grant_type: preAuthorizedGrant, 'pre-authorized_code': code });

    it('a withdrawn offer’s code at the token endpoint', async () => {
      const offer = await apiOffer();
      expect((await withdraw(offer.id)).status).toBe(200);
      expectError(await tokenFor(offer.code), 400, 'invalid_grant');
      expect(await offerRow(service.dataSource, offer.id)).toMatchObject({
        status: 'withdrawn',
        accessTokenHash: null,
      });
    });

    it('the credential request of an offer withdrawn after its token was issued: nothing is issued', async () => {
      const offer = await apiOffer();
      const granted = await tokenFor(offer.code);
      expect(granted.status).toBe(200);
      const token = (granted.body as { access_token: string }).access_token;
      const withdrawn = await withdraw(offer.id);
      expect(withdrawn.status).toBe(200);
      expect(withdrawn.body).toMatchObject({ status: 'withdrawn' });

      const before = issued.length;
      const c = await nonce();
      expectError(
        await postCredential(token, requestOf(await proofsOf([await walletKey()], { nonce: c }))),
        401,
        'invalid_token',
      );
      expect(issued.length).toBe(before);
      expect(await offerRow(service.dataSource, offer.id)).toMatchObject({
        status: 'withdrawn',
        claims: null,
        credentialIds: [],
        notificationId: null,
      });
      // The refused request did not spend the nonce: another offer's request may use it.
      const other = await accessToken();
      expect(
        (
          await postCredential(
            other.token,
            requestOf(await proofsOf([await walletKey()], { nonce: c })),
          )
        ).status,
      ).toBe(200);
    });

    it('an offer past its time with a still-valid token, before and after the expiry job marked it', async () => {
      const offer = await insertOffer(service, {
        tenantId: 'acme',
        configuration: sdJwtBadge,
        claims,
        expiresAt: new Date(Date.now() + 60_000),
      });
      const granted = await tokenFor(offer.preAuthorizedCode);
      expect(granted.status).toBe(200);
      const token = (granted.body as { access_token: string }).access_token;
      // The offer ended a minute in; its token is good for five.
      offset = 120_000;
      const request = async () =>
        requestOf([
          await keyProof(await walletKey(), {
            aud: issuerOf('acme'),
            nonce: await nonce(),
            iat: Math.floor((Date.now() + offset) / 1000),
          }),
        ]);
      const before = issued.length;
      expectError(await postCredential(token, await request()), 401, 'invalid_token');
      expect(await offerRow(service.dataSource, offer.id)).toMatchObject({
        status: 'accepted',
        credentialIds: [],
      });

      expect(await service.app.get(OfferExpiry).expireDue()).toBeGreaterThanOrEqual(1);
      expect(await offerRow(service.dataSource, offer.id)).toMatchObject({
        status: 'expired',
        claims: null,
      });
      expectError(await postCredential(token, await request()), 401, 'invalid_token');
      expect(issued.length).toBe(before);
    });

    it('the issuing transaction checks again under its lock: a withdraw or the end racing the request', async () => {
      const offers = service.app.get(OfferRepository);
      // Taken in a transaction that is rolled back: the offer stays accepted for the next try.
      const take = async (offerId: string, token: string, at: number) => {
        const runner = service.dataSource.createQueryRunner();
        await runner.startTransaction();
        try {
          return await offers.takeForIssue(runner.manager, {
            id: offerId,
            tokenHash: createHash('sha256').update(token).digest(),
            now: new Date(at),
            credentialIds: ['urn:uuid:00000000-0000-4000-8000-000000000001'],
            notificationId: 'n',
          });
        } finally {
          await runner.rollbackTransaction();
          await runner.release();
        }
      };
      const open = await accessToken();
      const taken = await take(open.offerId, open.token, Date.now());
      expect(taken).toMatchObject({ claimsSealed: expect.any(Buffer), claimsUnsealed: null });
      const vault = service.app.get(KeyVault, { strict: false });
      expect(openClaims(vault, open.offerId, taken!)).toEqual(claims);
      expect(await offerRow(service.dataSource, open.offerId)).toMatchObject({
        status: 'accepted',
      });
      // Past the offer's end (ten minutes), though the row still says accepted.
      expect(await take(open.offerId, open.token, Date.now() + 601_000)).toBeUndefined();
      expect((await withdraw(open.offerId)).status).toBe(200);
      expect(await take(open.offerId, open.token, Date.now())).toBeUndefined();
    });

    it('a failed offer’s token', async () => {
      // No request fails an accepted offer today; the token must still be worth nothing if one does.
      const { token, offerId } = await accessToken();
      await service.dataSource.query(`UPDATE oid4vci_offer SET status = 'failed' WHERE id = $1`, [
        offerId,
      ]);
      const before = issued.length;
      expectError(
        await postCredential(token, requestOf(await proofsOf([await walletKey()]))),
        401,
        'invalid_token',
      );
      expect(issued.length).toBe(before);
    });

    it('but an issued offer is no longer open: it cannot be withdrawn and takes notifications past its time', async () => {
      const offer = await insertOffer(service, {
        tenantId: 'acme',
        configuration: sdJwtBadge,
        claims,
        expiresAt: new Date(Date.now() + 60_000),
      });
      const granted = await tokenFor(offer.preAuthorizedCode);
      const token = (granted.body as { access_token: string }).access_token;
      const answer = await postCredential(token, requestOf(await proofsOf([await walletKey()])));
      expect(answer.status).toBe(200);
      expect((await withdraw(offer.id)).status).toBe(409);
      offset = 120_000;
      const notified = await call(service.url, path('acme', 'notification'), {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
        body: {
          notification_id: (answer.body as { notification_id: string }).notification_id,
          event: 'credential_accepted',
        },
      });
      expect(notified.status).toBe(204);
      expect(await offerRow(service.dataSource, offer.id)).toMatchObject({
        status: 'issued',
        notification: 'credential_accepted',
      });
    });
  });
});

describe('OpenID4VCI wallet endpoints are rate-limited by address', () => {
  it('answers 429 past the limit', async () => {
    const service = await startTestService({ env: { RATE_LIMIT_IP_PER_MINUTE: '3' } });
    try {
      // No tenant is needed: the limit comes before the tenant is looked at.
      const statuses: number[] = [];
      for (const endpoint of ['nonce', 'token', 'credential', 'notification', 'nonce']) {
        const answer = await call(service.url, `/ctrl/oid4vci/acme/${endpoint}`, {
          method: 'POST',
        });
        statuses.push(answer.status);
      }
      expect(statuses.slice(3)).toEqual([429, 429]);
      expect(statuses.slice(0, 3).every((status) => status < 429)).toBe(true);
    } finally {
      await service.close();
    }
  });
});
