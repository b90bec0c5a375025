import { setGlobalConfig } from '@openid4vc/oauth2';
import { type ResolvedOpenid4vpAuthorizationRequest } from '@openid4vc/openid4vp';
import { exportJWK } from 'jose';
import { answerRequest, resolveRequest } from './support/oid4vp-holder.js';
import { thumbprintOf, walletKey, type WalletKey } from './support/oid4vci-wallet.js';
import { issueTestSdJwtVc, presentTestSdJwtVc, type TestIssuer } from './support/sd-jwt-wallet.js';
import { startTestService, type TestService } from './support/test-service.js';
import { makeCertificate, makePki, type TestCertificate } from './support/x509-test-pki.js';

type Json = Record<string, unknown>;

const vct = 'https://credentials.example/identity';
const iss = 'https://issuer.example/pid';

/**
 * HAIP 1.0's x5c over the whole flow: SD-JWT VCs made by @sd-jwt/sd-jwt-vc, signed by the leaf of a
 * CA @peculiar/x509 made in the test, presented by OWF's wallet library to tenants with and without
 * trust anchors (added through the API), and DCQL `aki` trusted authorities.
 */
describe('OpenID4VP presentations signed through x5c', () => {
  let service: TestService;
  let pki: Awaited<ReturnType<typeof makePki>>;

  beforeAll(async () => {
    setGlobalConfig({ allowInsecureUrls: true });
    service = await startTestService();
    for (const id of ['anchored', 'elsewhere', 'open']) {
      await service.client().createTenant({ id, label: id });
    }
    pki = await makePki({ uris: [iss] });
    await service.client().createTrustAnchor('anchored', { certificate: pki.root.pem });
    const other = await makeCertificate('Another root', { ca: true });
    await service.client().createTrustAnchor('elsewhere', { certificate: other.pem });
  });
  afterAll(async () => {
    setGlobalConfig({ allowInsecureUrls: false });
    await service.close();
  });

  interface Opened {
    id: string;
    tenantId: string;
    resolved: ResolvedOpenid4vpAuthorizationRequest;
  }

  async function open(tenantId: string, query: Json = {}): Promise<Opened> {
    const dcqlQuery = {
      credentials: [
        {
          id: 'pid',
          format: 'dc+sd-jwt',
          meta: { vct_values: [vct] },
          claims: [{ path: ['given_name'] }],
          ...query,
        },
      ],
    };
    const created = await service.request<Json>('/ctrl/api/v1.0/oid4vp/requests', {
      method: 'POST',
      headers: { 'x-tenant-id': tenantId },
      // The wallet here knows the verifier by its DID; the credentials' x5c is what is tested.
      body: { dcqlQuery, clientIdPrefix: 'decentralized_identifier' },
    });
    expect(created.status).toBe(201);
    const resolved = await resolveRequest(created.body.authorizationRequestUri as string);
    return { id: created.body.id as string, tenantId, resolved };
  }

  /** A credential signed by `leaf` with `chain` as x5c, presented to `request` with key binding. */
  async function answer(
    request: Opened,
    leaf: TestCertificate,
    chain: TestCertificate[],
    holder: WalletKey,
    claimed = iss,
  ) {
    const issuer: TestIssuer = {
      iss: claimed,
      key: {
        alg: 'ES256',
        privateKey: leaf.keys.privateKey,
        publicJwk: await exportJWK(leaf.keys.publicKey),
      },
    };
    const credential = await issueTestSdJwtVc(issuer, {
      holder,
      extra: { vct },
      header: { x5c: chain.map((each) => each.base64) },
    });
    const payload = request.resolved.authorizationRequestPayload;
    const presentation = await presentTestSdJwtVc(
      credential,
      holder,
      { nonce: payload.nonce, aud: payload.client_id! },
      { given_name: true },
    );
    const response = await answerRequest(request.resolved, { pid: [presentation] });
    return { status: response.status, body: (await response.json()) as Json };
  }

  async function read(request: Opened): Promise<Json> {
    const response = await service.request<Json>(`/ctrl/api/v1.0/oid4vp/requests/${request.id}`, {
      headers: { 'x-tenant-id': request.tenantId },
    });
    expect(response.status).toBe(200);
    return response.body;
  }

  it('verifies a chain up to the tenant’s anchor, and the outcome names the leaf and the anchor', async () => {
    const holder = await walletKey('ES256');
    const request = await open('anchored');
    expect(await answer(request, pki.leaf, [pki.leaf, pki.intermediate], holder)).toEqual({
      status: 200,
      body: {},
    });
    expect((await read(request)).presented).toEqual({
      pid: [
        {
          format: 'dc+sd-jwt',
          issuer: iss,
          vct,
          holderKeyThumbprint: await thumbprintOf(holder),
          status: 'none',
          certificateChain: { leafSubject: pki.leaf.subject, anchorSubject: pki.root.subject },
          claims: { given_name: 'Erika' },
        },
      ],
    });
  });

  it('refuses the chain at a tenant whose anchors are others, and the request stays pending', async () => {
    const holder = await walletKey('ES256');
    const request = await open('elsewhere');
    const refused = await answer(request, pki.leaf, [pki.leaf, pki.intermediate], holder);
    expect(refused).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    expect(refused.body.error_description).toBe(
      `pid: the credential's x5c chain: the chain's last certificate (${pki.intermediate.subject}) is neither a trust anchor nor issued by one`,
    );
    expect(await read(request)).toMatchObject({ status: 'pending', refusedAnswers: 1 });
  });

  it('accepts any chain that holds together at a tenant without anchors or trusted issuers', async () => {
    const holder = await walletKey('ES256');
    const request = await open('open');
    expect((await answer(request, pki.leaf, [pki.leaf, pki.intermediate], holder)).status).toBe(
      200,
    );
    const presented = (await read(request)).presented as Record<string, Json[]>;
    expect(presented.pid[0].certificateChain).toEqual({
      leafSubject: pki.leaf.subject,
      anchorSubject: null,
    });
  });

  it('refuses a leaf that does not name iss, and an expired chain', async () => {
    const holder = await walletKey('ES256');
    const request = await open('anchored');
    const otherIss = await answer(
      request,
      pki.leaf,
      [pki.leaf, pki.intermediate],
      holder,
      'https://other.example/pid',
    );
    expect(otherIss.status).toBe(400);
    expect(otherIss.body.error_description).toMatch(
      /^pid: the x5c leaf certificate \(CN=.*\) names no SAN URI 'https:\/\/other.example\/pid' nor its host as a dNSName$/,
    );
    const expired = await makeCertificate('Expired issuer', {
      issuer: pki.intermediate,
      uris: [iss],
      notBefore: new Date(Date.now() - 10 * 86_400_000),
      notAfter: new Date(Date.now() - 86_400_000),
    });
    const old = await answer(request, expired, [expired, pki.intermediate], holder);
    expect(old.status).toBe(400);
    expect(old.body.error_description).toMatch(
      /^pid: the credential's x5c chain: the leaf is valid from .* not at /,
    );
    expect(await read(request)).toMatchObject({ status: 'pending', refusedAnswers: 2 });
    // The right credential still verifies it.
    expect((await answer(request, pki.leaf, [pki.leaf, pki.intermediate], holder)).status).toBe(
      200,
    );
  });

  it('keeps a credential whose chain has a key identifier the aki query names, and fails one without', async () => {
    const holder = await walletKey('ES256');
    const kept = await open('anchored', {
      trusted_authorities: [{ type: 'aki', values: [pki.root.keyId] }],
    });
    expect((await answer(kept, pki.leaf, [pki.leaf, pki.intermediate], holder)).status).toBe(200);
    expect(await read(kept)).toMatchObject({ status: 'verified' });

    const stranger = await makeCertificate('Stranger', { ca: true });
    const dropped = await open('anchored', {
      trusted_authorities: [{ type: 'aki', values: [stranger.keyId] }],
    });
    const failed = await answer(dropped, pki.leaf, [pki.leaf, pki.intermediate], holder);
    expect(failed).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    // Bound by the holder's key binding: the request ends failed, naming the rule.
    expect(await read(dropped)).toMatchObject({
      status: 'failed',
      outcome: {
        code: 'query_not_satisfied',
        reason:
          "A credential for pid has no x5c certificate with a key identifier the query's trusted_authorities name.",
      },
    });
  });

  it('refuses a request whose trusted_authorities are of a type it does not check', async () => {
    const created = await service.request<Json>('/ctrl/api/v1.0/oid4vp/requests', {
      method: 'POST',
      headers: { 'x-tenant-id': 'anchored' },
      body: {
        dcqlQuery: {
          credentials: [
            {
              id: 'pid',
              format: 'dc+sd-jwt',
              meta: { vct_values: [vct] },
              trusted_authorities: [{ type: 'etsi_tl', values: ['https://tl.example/list'] }],
            },
          ],
        },
      },
    });
    expect(created.status).toBe(400);
    expect(created.body).toMatchObject({
      code: 'VALIDATION_FAILED',
      errors: [
        {
          field: 'dcqlQuery.credentials.0.trusted_authorities.0.type',
          message: "'etsi_tl' is not supported: only aki",
        },
      ],
    });
  });
});
