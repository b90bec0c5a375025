import { setGlobalConfig as setOid4vciConfig } from '@openid4vc/openid4vci';
import { receiveCredentials } from '../support/oid4vci-holder.js';
import { walletKey, type WalletKey } from '../support/oid4vci-wallet.js';
import { answerRequest, presentWithKeyBinding, resolveRequest } from '../support/oid4vp-holder.js';
import { call, passwordGrant, type ApiResponse } from '../support/test-service.js';
import { eventually } from './support/app-process.js';
import { Cleanup } from './support/cleanup.js';
import { startCluster, type Cluster } from './support/cluster.js';

type Json = Record<string, unknown>;

const issuerTenant = 'univ';
const verifierTenant = 'shop';
const diploma = {
  id: 'Diploma',
  format: 'dc+sd-jwt',
  vct: 'https://university.example/credentials/diploma',
  claims: [
    { path: ['given_name'], mandatory: true },
    { path: ['family_name'], mandatory: true },
    { path: ['degree'] },
  ],
};
const claims = { given_name: 'Erika', family_name: 'Mustermann', degree: 'MSc' };
const dcqlQuery = {
  credentials: [
    {
      id: 'diploma',
      format: 'dc+sd-jwt',
      meta: { vct_values: [diploma.vct] },
      claims: [{ path: ['given_name'] }, { path: ['degree'] }],
    },
  ],
};

/**
 * OpenID4VP as deployed: two app processes on one database behind real nginx, PUBLIC_BASE_URL the
 * gateway's origin. One tenant issues an SD-JWT VC to OWF's wallet library, another asks for it; the
 * request is made at one instance and answered at the other, and the outcome reads the same at both
 * (docs/oid4vp.md).
 */
describe('OpenID4VP through the gateway, two instances on one database', () => {
  const cleanup = new Cleanup();
  let cluster: Cluster;
  let origin: string;
  let admin: string;
  let holderKey: WalletKey;
  let credential: string;

  const api = <Body = Json>(
    baseUrl: string,
    tenantId: string,
    path: string,
    body?: unknown,
  ): Promise<ApiResponse<Body>> =>
    call<Body>(baseUrl, `/ctrl/api/v1.0${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${admin}`, 'x-tenant-id': tenantId },
      body,
    });

  const createTenant = async (id: string) => {
    const tenant = await call(origin, '/ctrl/api/v1.0/tenants/create', {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}` },
      query: { id, label: id },
    });
    expect(tenant.status).toBe(201);
  };

  /** A request of the verifier tenant made at `baseUrl`: its id and link. */
  const openRequest = async (baseUrl: string, body: Json = {}) => {
    const made = await api<Json>(baseUrl, verifierTenant, '/oid4vp/requests', {
      dcqlQuery,
      // The wallet here verifies request objects through the DID alone.
      clientIdPrefix: 'decentralized_identifier',
      ...body,
    });
    expect(made.status).toBe(201);
    return { id: made.body.id as string, link: made.body.authorizationRequestUri as string };
  };

  /** The link's request_uri and response_uri moved from the gateway's origin to `baseUrl`. */
  const at = (baseUrl: string, url: string) => url.replace(origin, baseUrl);

  beforeAll(async () => {
    setOid4vciConfig({ allowInsecureUrls: true });
    cluster = await startCluster(cleanup, 'oid4vp');
    origin = cluster.gateway.origin;
    admin = (await passwordGrant(origin, 'admin', 'admin')).access_token;
    await createTenant(issuerTenant);
    await createTenant(verifierTenant);
    const configuration = await api(
      origin,
      issuerTenant,
      '/oid4vci/credential-configurations/create',
      diploma,
    );
    expect(configuration.status).toBe(201);
    const offer = await api<Json>(origin, issuerTenant, '/oid4vci/offers', {
      credentialConfigurationId: 'Diploma',
      claims,
    });
    expect(offer.status).toBe(201);
    holderKey = await walletKey('ES256');
    const received = await receiveCredentials(offer.body.credentialOfferUri as string, [holderKey]);
    credential = received.credentials[0] as string;
  }, 120_000);
  afterAll(async () => {
    setOid4vciConfig({ allowInsecureUrls: false });
    await cleanup.run();
  }, 60_000);

  it('verifies an encrypted answer through nginx with only the disclosed claims, served by both instances', async () => {
    const { id, link } = await openRequest(origin, { responseMode: 'direct_post.jwt' });
    const logFrom = cluster.gateway.accessEntries().length;
    const resolved = await resolveRequest(link);
    const request = resolved.authorizationRequestPayload;
    const presentation = await presentWithKeyBinding(
      credential,
      { given_name: true, degree: true },
      holderKey,
      { nonce: request.nonce, aud: request.client_id! },
    );
    const answered = await answerRequest(resolved, { diploma: [presentation] });
    expect(answered.status).toBe(200);

    const outcome = await api<Json>(origin, verifierTenant, `/oid4vp/requests/${id}`);
    expect(outcome.body).toMatchObject({ status: 'verified' });
    const [presented] = (outcome.body.presented as Record<string, Json[]>).diploma;
    expect(presented).toMatchObject({
      format: 'dc+sd-jwt',
      issuer: `${origin}/ctrl/oid4vci/${issuerTenant}`,
      vct: diploma.vct,
      status: 'valid',
    });
    expect(presented.claims).toMatchObject({ given_name: 'Erika', degree: 'MSc' });
    expect(presented.claims).not.toHaveProperty('family_name');

    // The wallet's two requests (request object, answer) went through nginx to the app.
    const walletRequests = await eventually(
      () => {
        const entries = cluster.gateway
          .accessEntries()
          .slice(logFrom)
          .filter((entry) => entry.uri.startsWith(`/ctrl/oid4vp/${verifierTenant}/requests/`));
        return entries.length >= 2 ? entries : undefined;
      },
      5_000,
      'the wallet requests in the access log',
    );
    expect(walletRequests.map((entry) => `${entry.method} ${entry.status}`)).toEqual([
      'GET 200',
      'POST 200',
    ]);
  });

  it('takes at one instance the answer to a request the other made and served, once', async () => {
    const [zero, one] = cluster.instances;
    const { id, link } = await openRequest(zero.url);
    const requestUri = new URL(link).searchParams.get('request_uri')!;
    expect(requestUri.startsWith(`${origin}/ctrl/oid4vp/${verifierTenant}/requests/`)).toBe(true);
    const resolved = await resolveRequest(
      link.replace(encodeURIComponent(origin), encodeURIComponent(zero.url)),
    );
    const request = resolved.authorizationRequestPayload;
    // The response_uri names the gateway's origin; the answer goes to instance 1 directly.
    const responseUri = at(one.url, String(request.response_uri));
    const presentation = await presentWithKeyBinding(
      credential,
      { given_name: true, degree: true },
      holderKey,
      {
        nonce: request.nonce,
        aud: request.client_id!,
      },
    );
    const form = {
      vp_token: JSON.stringify({ diploma: [presentation] }),
      state: request.state!,
    };
    const post = () =>
      fetch(responseUri, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form).toString(),
      });
    const answered = await post();
    expect({ status: answered.status, body: await answered.text() }).toEqual({
      status: 200,
      body: '{}',
    });
    // A replay at the other instance is refused and changes nothing.
    const replay = await fetch(at(zero.url, String(request.response_uri)), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form).toString(),
    });
    expect(replay.status).toBe(400);
    for (const instance of [zero, one]) {
      const outcome = await api<Json>(instance.url, verifierTenant, `/oid4vp/requests/${id}`);
      expect(outcome.body).toMatchObject({ status: 'verified' });
    }
  });
});
