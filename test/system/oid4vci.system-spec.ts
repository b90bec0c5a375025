import { setGlobalConfig } from '@openid4vc/openid4vci';
import { getListFromStatusListJWT } from '@sd-jwt/jwt-status-list';
import {
  independentVerifier,
  receiveCredentials,
  signedPayload,
} from '../support/oid4vci-holder.js';
import { keyProof, walletKey } from '../support/oid4vci-wallet.js';
import { call, passwordGrant, postForm, type ApiResponse } from '../support/test-service.js';
import { eventually } from './support/app-process.js';
import { Cleanup } from './support/cleanup.js';
import { startCluster, type Cluster } from './support/cluster.js';
import { type AccessEntry } from './support/nginx.js';

type Json = Record<string, unknown>;

const tenantId = 'univ';
const diploma = {
  id: 'Diploma',
  format: 'dc+sd-jwt',
  vct: 'https://university.example/credentials/diploma',
  claims: [
    { path: ['given_name'], mandatory: true },
    { path: ['family_name'], mandatory: true },
    { path: ['degree', 'name'] },
  ],
};
const claims = { given_name: 'Erika', family_name: 'Mustermann', degree: { name: 'MSc' } };
const preAuthorizedGrant = 'urn:ietf:params:oauth:grant-type:pre-authorized_code';

/**
 * OpenID4VCI issuance as deployed: two app processes on one database behind real nginx from the
 * template, PUBLIC_BASE_URL the gateway's origin. The API caller, OWF's wallet library and a verifier
 * with only the credential all reach the service through nginx; codes, tokens and nonces live in
 * PostgreSQL, so a request may land on either instance (docs/oid4vci.md).
 */
describe('OpenID4VCI through the gateway, two instances on one database', () => {
  const cleanup = new Cleanup();
  let cluster: Cluster;
  let origin: string;
  let admin: string;
  const issuer = () => `${origin}/ctrl/oid4vci/${tenantId}`;

  const api = <Body = Json>(path: string, body?: unknown): Promise<ApiResponse<Body>> =>
    call<Body>(origin, `/ctrl/api/v1.0${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${admin}`, 'x-tenant-id': tenantId },
      body,
    });

  const offer = async (body: Json): Promise<Json> => {
    const made = await api<Json>('/oid4vci/offers', body);
    expect(made.status).toBe(201);
    return made.body;
  };

  /**
   * nginx's access log entries after the first `from` whose path starts so, once there are `count` (a
   * line is written as the response goes out, so it may trail the answer a little).
   */
  const servedBy = (from: number, prefixes: string[], count: number): Promise<AccessEntry[]> =>
    eventually(
      () => {
        const entries = cluster.gateway
          .accessEntries()
          .slice(from)
          .filter((entry) => prefixes.some((prefix) => entry.uri.startsWith(prefix)));
        return entries.length >= count ? entries : undefined;
      },
      5_000,
      `${count} access log lines of ${prefixes.join(', ')}`,
    );
  const portsOf = (entries: AccessEntry[]) =>
    [...new Set(entries.map((entry) => Number(entry.upstreams.at(-1)?.split(':')[1])))].sort();

  beforeAll(async () => {
    setGlobalConfig({ allowInsecureUrls: true });
    cluster = await startCluster(cleanup, 'oid4vci');
    origin = cluster.gateway.origin;
    // An administrator's token from the gateway's /auth path, then the issuer's setup, all via nginx.
    admin = (await passwordGrant(origin, 'admin', 'admin')).access_token;
    const tenant = await call(origin, '/ctrl/api/v1.0/tenants/create', {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}` },
      query: { id: tenantId, label: 'University of Examples' },
    });
    expect(tenant.status).toBe(201);
    const configuration = await api('/oid4vci/credential-configurations/create', diploma);
    expect(configuration.status).toBe(201);
  }, 120_000);
  afterAll(async () => {
    setGlobalConfig({ allowInsecureUrls: false });
    await cleanup.run();
  }, 60_000);

  it('issues a DPoP batch of two SD-JWT VCs to a wallet with only the link, served by both instances; a verifier sees the revocation', async () => {
    const made = await offer({ credentialConfigurationId: 'Diploma', claims, txCode: true });
    // By reference, and the reference is on the gateway's origin.
    const link = new URL(made.credentialOfferUri as string);
    expect(link.protocol).toBe('openid-credential-offer:');
    const reference = `${issuer()}/credential-offers/`;
    expect(link.searchParams.get('credential_offer_uri')?.slice(0, reference.length)).toBe(
      reference,
    );

    const logFrom = cluster.gateway.accessEntries().length;
    const keys = [await walletKey('ES256'), await walletKey('ES256')];
    const received = await receiveCredentials(made.credentialOfferUri as string, keys, {
      txCode: made.txCode as string,
      dpopKey: await walletKey('ES256'),
    });
    expect(received.tokenType).toBe('DPoP');
    expect(received.credentials).toHaveLength(2);

    // Every wallet request went through nginx, was answered without a retry, and the instances shared
    // them (nginx's round robin): offer, both metadata documents, token, nonce, credential.
    const walletRequests = await servedBy(
      logFrom,
      [
        `/ctrl/oid4vci/${tenantId}/`,
        '/.well-known/openid-credential-issuer/',
        '/.well-known/oauth-authorization-server/',
      ],
      6,
    );
    expect(
      walletRequests.map((entry) => ({
        request: `${entry.method} ${entry.uri.replace(/credential-offers\/.*/, 'credential-offers/…')}`,
        status: entry.status,
        tries: entry.upstreams.length,
      })),
    ).toEqual(
      expect.arrayContaining(
        [
          `GET /ctrl/oid4vci/${tenantId}/credential-offers/…`,
          `GET /.well-known/openid-credential-issuer/ctrl/oid4vci/${tenantId}`,
          `GET /.well-known/oauth-authorization-server/ctrl/oid4vci/${tenantId}`,
          `POST /ctrl/oid4vci/${tenantId}/token`,
          `POST /ctrl/oid4vci/${tenantId}/nonce`,
          `POST /ctrl/oid4vci/${tenantId}/credential`,
        ].map((request) => ({ request, status: 200, tries: 1 })),
      ),
    );
    expect(portsOf(walletRequests)).toEqual(
      cluster.instances.map((instance) => instance.port).sort(),
    );

    // The verifier has the credentials only: keys and status from the gateway's origin.
    const verifier = independentVerifier();
    for (const [n, credential] of received.credentials.entries()) {
      const { payload } = await verifier.verify(credential as string);
      expect(payload).toMatchObject({
        iss: issuer(),
        vct: diploma.vct,
        cnf: { jwk: { x: keys[n].publicJwk.x, y: keys[n].publicJwk.y } },
        ...claims,
      });
    }
    const keyFetches = await servedBy(logFrom, ['/.well-known/jwt-vc-issuer/'], 2);
    expect(keyFetches.map((entry) => `${entry.uri} ${entry.status}`)).toContain(
      `/.well-known/jwt-vc-issuer/ctrl/oid4vci/${tenantId} 200`,
    );
    const [one, other] = (received.credentials as string[]).map(
      (credential) =>
        (signedPayload(credential).status as { status_list: { idx: number; uri: string } })
          .status_list,
    );
    const lists = `${origin}/ctrl/status-lists/${tenantId}/`;
    expect(one.uri.slice(0, lists.length)).toBe(lists);

    // Revoked through the API via nginx: the list shows it at once, whichever instance signs it.
    const [credentialId] = (await api<Json>(`/oid4vci/offers/${made.id as string}`)).body
      .credentialIds as string[];
    const revoked = await api('/credentials/status', {
      credentialId,
      credentialStatus: { statusPurpose: 'revocation' },
    });
    expect(revoked.status).toBe(204);
    const listFrom = cluster.gateway.accessEntries().length;
    for (let fetches = 0; fetches < 2; fetches++) {
      const list = getListFromStatusListJWT(await (await fetch(one.uri)).text());
      expect([list.getStatus(one.idx), list.getStatus(other.idx)]).toEqual([1, 0]);
    }
    expect(portsOf(await servedBy(listFrom, ['/ctrl/status-lists/'], 2))).toHaveLength(2);
    const [first, second] = received.credentials as string[];
    await expect(verifier.verify(first)).rejects.toThrow(/Status is not valid/);
    await expect(verifier.verify(second)).resolves.toBeDefined();
  });

  it('accepts at one instance the token and nonce the other issued, and refuses there a code the other redeemed', async () => {
    const [zero, one] = cluster.instances;
    const made = await offer({ credentialConfigurationId: 'Diploma', claims });
    const grants = (made.credentialOffer as { grants: Record<string, Json> }).grants;
    const code = grants[preAuthorizedGrant]['pre-authorized_code'] as string;
    const redeem = (baseUrl: string) =>
      postForm(baseUrl, `/ctrl/oid4vci/${tenantId}/token`, {
        grant_type: preAuthorizedGrant,
        'pre-authorized_code': code,
      });

    // The code redeemed at instance 0, the nonce from instance 0, the credential asked of instance 1.
    const token = await redeem(zero.url);
    expect(token.status).toBe(200);
    const { access_token: accessToken, token_type: tokenType } = token.body as Json;
    expect(tokenType).toBe('Bearer');
    expect((await redeem(one.url)).body).toMatchObject({ error: 'invalid_grant' });
    const nonce = await call<Json>(zero.url, `/ctrl/oid4vci/${tenantId}/nonce`, { method: 'POST' });
    expect(nonce.status).toBe(200);
    const key = await walletKey('ES256');
    const request = async (baseUrl: string) =>
      call<Json>(baseUrl, `/ctrl/oid4vci/${tenantId}/credential`, {
        method: 'POST',
        headers: { authorization: `Bearer ${accessToken as string}` },
        body: {
          credential_configuration_id: 'Diploma',
          proofs: {
            jwt: [await keyProof(key, { aud: issuer(), nonce: nonce.body.c_nonce as string })],
          },
        },
      });
    const credential = await request(one.url);
    expect(credential.status).toBe(200);
    const [sdJwt] = (credential.body.credentials as { credential: string }[]).map(
      (entry) => entry.credential,
    );
    const { payload } = await independentVerifier().verify(sdJwt);
    expect(payload).toMatchObject({ iss: issuer(), cnf: { jwk: { x: key.publicJwk.x } } });

    // The token was for one credential request: used up at instance 1, it is refused at instance 0.
    const again = await request(zero.url);
    expect(again.status).toBe(401);
    expect(again.body).toMatchObject({ error: 'invalid_token' });
    // And the offer is issued, seen from the gateway (either instance).
    expect((await api<Json>(`/oid4vci/offers/${made.id as string}`)).body).toMatchObject({
      status: 'issued',
    });
  });

  it('answers any other /.well-known path itself (404), without asking an instance', async () => {
    const logFrom = cluster.gateway.accessEntries().length;
    const paths = [
      '/.well-known/openid-configuration',
      '/.well-known/did.json',
      '/.well-known/openid-credential-issuer',
      '/.well-known/jwt-vc-issuer',
      '/.well-known/openid-federation/ctrl/oid4vci/univ',
      '/.well-known/jwt-vc-issuer-x/ctrl/oid4vci/univ',
    ];
    for (const path of paths) {
      const answer = await call<Json>(origin, path);
      expect({ path, status: answer.status, detail: answer.body.detail }).toEqual({
        path,
        status: 404,
        detail: 'Only /ctrl and /auth are served here.',
      });
    }
    const logged = await servedBy(logFrom, ['/.well-known/'], paths.length);
    expect(logged.map((entry) => ({ uri: entry.uri, upstreams: entry.upstreams }))).toEqual(
      paths.map((uri) => ({ uri, upstreams: [] })),
    );
  });
});
