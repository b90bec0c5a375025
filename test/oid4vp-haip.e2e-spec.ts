import { setGlobalConfig } from '@openid4vc/oauth2';
import { type ResolvedOpenid4vpAuthorizationRequest } from '@openid4vc/openid4vp';
import { CompactEncrypt, decodeProtectedHeader, importJWK, SignJWT, type JWK } from 'jose';
import { createHash } from 'node:crypto';
import { expectFieldErrors, expectProblem } from './support/problems.js';
import { startTestService, type TestService } from './support/test-service.js';
import { sdJwtBadge } from './support/oid4vci-fixtures.js';
import { receiveCredentials } from './support/oid4vci-holder.js';
import { walletKey, type WalletKey } from './support/oid4vci-wallet.js';
import {
  answerRequest,
  disclose,
  presentWithKeyBinding,
  resolveRequest,
} from './support/oid4vp-holder.js';

type Json = Record<string, unknown>;

const requests = '/ctrl/api/v1.0/oid4vp/requests';
const eddsaBadge = { ...sdJwtBadge, id: 'EmployeeBadge_eddsa', signingAlgorithm: 'EdDSA' as const };
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
const claims = { given_name: 'Erika', address: { locality: 'Berlin' } };
const frame = { given_name: true };

/**
 * The parts of HAIP 1.0 a tenant meets as a verifier without X.509 (docs/oid4vp.md): `direct_post.jwt`
 * with a fresh ECDH-ES P-256 key per request and A128GCM or A256GCM, encrypted by OWF's wallet library
 * and by jose as a wallet would; the state Sphereon's did-auth-siop posts beside the JWE; the tenant's
 * own EdDSA SD-JWT VCs presented back to it, with KB-JWTs labelled `EdDSA` or `Ed25519` (RFC 9864).
 * One tenant issues (OpenID4VCI) and verifies, through the requests API, over real HTTP and PostgreSQL.
 */
describe('OpenID4VP, HAIP 1.0 without X.509', () => {
  let service: TestService;

  beforeAll(async () => {
    setGlobalConfig({ allowInsecureUrls: true });
    service = await startTestService();
    await service.client().createTenant({ id: 'acme', label: 'ACME' });
    for (const configuration of [sdJwtBadge, eddsaBadge])
      await service.client().createCredentialConfiguration('acme', configuration);
  });
  afterAll(async () => {
    setGlobalConfig({ allowInsecureUrls: false });
    await service.close();
  });

  /** A request opened through the API, and what a wallet resolves from its link alone. */
  async function open(
    responseMode: 'direct_post' | 'direct_post.jwt' = 'direct_post.jwt',
    more: Json = {},
  ) {
    const created = await service.request<Json>(requests, {
      method: 'POST',
      headers: { 'x-tenant-id': 'acme' },
      // The wallet here verifies request objects through the DID; X.509: test/oid4vp-x509.e2e-spec.ts.
      body: {
        dcqlQuery: badgeQuery,
        responseMode,
        clientIdPrefix: 'decentralized_identifier',
        ...more,
      },
    });
    expect(created.status).toBe(201);
    const resolved = await resolveRequest(created.body.authorizationRequestUri as string);
    return { id: created.body.id as string, resolved };
  }

  const outcomeOf = async (id: string) =>
    (await service.request<Json>(`${requests}/${id}`, { headers: { 'x-tenant-id': 'acme' } })).body;

  /** An SD-JWT VC of the tenant's own issuer, bound to a new wallet key of `alg`. */
  async function issue(configurationId: string, alg: 'ES256' | 'EdDSA' = 'ES256') {
    const offer = await service.request<Json>('/ctrl/api/v1.0/oid4vci/offers', {
      method: 'POST',
      headers: { 'x-tenant-id': 'acme' },
      body: { credentialConfigurationId: configurationId, claims },
    });
    expect(offer.status).toBe(201);
    const key = await walletKey(alg);
    const received = await receiveCredentials(offer.body.credentialOfferUri as string, [key]);
    return { credential: received.credentials[0] as string, key };
  }

  const requestClaims = (resolved: ResolvedOpenid4vpAuthorizationRequest) => ({
    nonce: resolved.authorizationRequestPayload.nonce,
    aud: resolved.authorizationRequestPayload.client_id!,
  });

  /** The request's public encryption key, as its request object gives it. */
  const encryptionJwkOf = (resolved: ResolvedOpenid4vpAuthorizationRequest) =>
    (resolved.authorizationRequestPayload.client_metadata!.jwks as { keys: JWK[] }).keys[0];

  async function post(url: string, form: Record<string, string>) {
    const response = await fetch(url, { method: 'POST', body: new URLSearchParams(form) });
    return { status: response.status, body: (await response.json()) as Json };
  }

  it('gives each direct_post.jwt request a fresh P-256 key, named by kid, for ECDH-ES with A128GCM or A256GCM', async () => {
    const [first, second] = [await open(), await open()];
    const metadata = first.resolved.authorizationRequestPayload.client_metadata!;
    expect(metadata.encrypted_response_enc_values_supported).toEqual(['A128GCM', 'A256GCM']);
    expect(metadata.vp_formats_supported).toMatchObject({
      'dc+sd-jwt': {
        'sd-jwt_alg_values': ['ES256', 'EdDSA', 'Ed25519'],
        'kb-jwt_alg_values': ['ES256', 'EdDSA', 'Ed25519'],
      },
    });
    const keys = [encryptionJwkOf(first.resolved), encryptionJwkOf(second.resolved)];
    for (const key of keys)
      expect(key).toEqual({
        kty: 'EC',
        crv: 'P-256',
        x: expect.any(String),
        y: expect.any(String),
        kid: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
        use: 'enc',
        alg: 'ECDH-ES',
      });
    expect(keys[0].x).not.toBe(keys[1].x);
    expect(keys[0].kid).not.toBe(keys[1].kid);
  });

  it.each(['A128GCM', 'A256GCM'] as const)(
    'verifies an answer that OWF’s wallet library encrypts with %s',
    async (enc) => {
      const { credential, key } = await issue(sdJwtBadge.id);
      const { id, resolved } = await open();
      const presentation = await presentWithKeyBinding(
        credential,
        frame,
        key,
        requestClaims(resolved),
      );
      const sent: string[] = [];
      const answered = await answerRequest(resolved, { badge: [presentation] }, { enc, sent });
      expect(answered.status).toBe(200);
      const [jwe] = sent;
      expect(decodeProtectedHeader(jwe)).toMatchObject({
        alg: 'ECDH-ES',
        enc,
        kid: encryptionJwkOf(resolved).kid,
      });
      expect(await outcomeOf(id)).toMatchObject({ status: 'verified', refusedAnswers: 0 });
    },
  );

  it.each(['A128GCM', 'A256GCM'] as const)(
    'verifies a JWE made with jose (%s) with the request’s state beside it in the clear (Sphereon); another state there is refused and counted',
    async (enc) => {
      const { credential, key } = await issue(sdJwtBadge.id);
      const { id, resolved } = await open();
      const request = resolved.authorizationRequestPayload;
      const state = request.state as string;
      const responseUri = request.response_uri as string;
      const presentation = await presentWithKeyBinding(
        credential,
        frame,
        key,
        requestClaims(resolved),
      );
      const jwk = encryptionJwkOf(resolved);
      const payload = { vp_token: { badge: [presentation] }, state };
      const response = await new CompactEncrypt(new TextEncoder().encode(JSON.stringify(payload)))
        .setProtectedHeader({ alg: 'ECDH-ES', enc, kid: jwk.kid })
        .encrypt(await importJWK(jwk, 'ECDH-ES'));

      const refused = await post(responseUri, { response, state: `${state}x` });
      expect(refused).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
      expect(refused.body.error_description).toMatch(/state beside response/);
      expect(await outcomeOf(id)).toMatchObject({ status: 'pending', refusedAnswers: 1 });

      const answered = await post(responseUri, { response, state });
      expect(answered).toEqual({ status: 200, body: {} });
      expect(await outcomeOf(id)).toMatchObject({ status: 'verified', refusedAnswers: 1 });
    },
  );

  it.each(['EdDSA', 'Ed25519'] as const)(
    'verifies the tenant’s own EdDSA SD-JWT VC presented back to it with a KB-JWT labelled %s',
    async (kbAlg) => {
      const { credential, key } = await issue(eddsaBadge.id, 'EdDSA');
      expect(decodeProtectedHeader(credential.split('~')[0])).toMatchObject({ alg: 'EdDSA' });
      const { id, resolved } = await open('direct_post');
      const presentation = await withKbAlg(await disclose(credential, frame), key, kbAlg, {
        ...requestClaims(resolved),
      });
      expect(decodeProtectedHeader(presentation.split('~').pop()!).alg).toBe(kbAlg);
      const answered = await answerRequest(resolved, { badge: [presentation] });
      expect(answered.status).toBe(200);
      expect(await outcomeOf(id)).toMatchObject({
        status: 'verified',
        presented: { badge: [{ issuer: `${service.publicBaseUrl}/ctrl/oid4vci/acme` }] },
      });
    },
  );

  it.each(['direct_post', 'direct_post.jwt'] as const)(
    'answers a same-device request (%s) with its redirect_uri and a fresh response_code, whose SHA-256 the request shows',
    async (responseMode) => {
      const redirectUri = 'https://shop.example/checkout/done?cart=7';
      const { credential, key } = await issue(sdJwtBadge.id);
      const { id, resolved } = await open(responseMode, { redirectUri });
      expect(await outcomeOf(id)).toMatchObject({ redirectUri, responseCodeSha256: null });
      const presentation = await presentWithKeyBinding(
        credential,
        frame,
        key,
        requestClaims(resolved),
      );
      const answered = await answerRequest(resolved, { badge: [presentation] });
      expect(answered.status).toBe(200);
      const body = (await answered.json()) as Json;
      expect(Object.keys(body)).toEqual(['redirect_uri']);
      const redirect = new URL(body.redirect_uri as string);
      expect(`${redirect.origin}${redirect.pathname}`).toBe('https://shop.example/checkout/done');
      expect(redirect.searchParams.get('cart')).toBe('7');
      const code = redirect.searchParams.get('response_code')!;
      expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(await outcomeOf(id)).toMatchObject({
        status: 'verified',
        redirectUri,
        responseCodeSha256: createHash('sha256').update(code).digest('base64url'),
      });
    },
  );

  it('shows no redirect URI unless given, and refuses one that is not https, has a fragment or is too long', async () => {
    const { id } = await open('direct_post');
    expect(await outcomeOf(id)).toMatchObject({ redirectUri: null, responseCodeSha256: null });
    const before = await service.request<Json>(requests, { headers: { 'x-tenant-id': 'acme' } });
    for (const redirectUri of [
      'http://shop.example/done',
      'https://shop.example/done#top',
      'javascript:alert(1)',
      'https://shop.example/ done',
      `https://shop.example/${'a'.repeat(2048)}`,
      42,
    ]) {
      const refused = await service.request(requests, {
        method: 'POST',
        headers: { 'x-tenant-id': 'acme' },
        body: { dcqlQuery: badgeQuery, redirectUri },
      });
      expectFieldErrors(expectProblem(refused, 400, 'VALIDATION_FAILED', requests), [
        'redirectUri',
      ]);
    }
    const after = await service.request<Json>(requests, { headers: { 'x-tenant-id': 'acme' } });
    expect(after.body.totalElements).toBe(before.body.totalElements);
  });
});

/** A KB-JWT (RFC 9901 §4.3) by an Ed25519 key whose header names the algorithm as `alg` says. */
async function withKbAlg(
  presentation: string,
  key: WalletKey,
  alg: 'EdDSA' | 'Ed25519',
  claims: { nonce: string; aud: string },
): Promise<string> {
  const kb = await new SignJWT({
    iat: Math.floor(Date.now() / 1000),
    ...claims,
    sd_hash: createHash('sha256').update(presentation).digest('base64url'),
  })
    .setProtectedHeader({ alg, typ: 'kb+jwt' })
    .sign(key.privateKey);
  return `${presentation}${kb}`;
}
