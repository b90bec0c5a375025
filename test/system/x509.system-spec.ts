import 'reflect-metadata';
import { setGlobalConfig } from '@openid4vc/openid4vci';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { exportJWK } from 'jose';
import { join } from 'node:path';
import { Client } from 'pg';
import { receiveCredentials, signedPayload } from '../support/oid4vci-holder.js';
import { walletKey } from '../support/oid4vci-wallet.js';
import {
  fetchMdocRequest,
  handTranscript,
  postMdocAnswer,
  presentMdoc,
} from '../support/mdoc-holder.js';
import { answerRequest, presentWithKeyBinding, resolveRequest } from '../support/oid4vp-holder.js';
import { call, passwordGrant, type ApiResponse } from '../support/test-service.js';
import {
  certificatesOf,
  chainsTo,
  headerOf,
  sanUris,
  verifiedByLeaf,
} from '../support/x5c-chain.js';
import { makeCa, pemChain, signLeaf, x509, type Issuer } from '../support/x509-test-ca.js';
import { eventually } from './support/app-process.js';
import { Cleanup } from './support/cleanup.js';
import { startCluster, type Cluster } from './support/cluster.js';

type Json = Record<string, unknown>;

const issuerTenant = 'univ';
const verifierTenant = 'shop';
const badge = {
  id: 'Badge',
  format: 'dc+sd-jwt',
  vct: 'https://univ.example/credentials/badge',
  claims: [{ path: ['given_name'], mandatory: true }],
};
const dcqlQuery = {
  credentials: [
    {
      id: 'badge',
      format: 'dc+sd-jwt',
      meta: { vct_values: [badge.vct] },
      claims: [{ path: ['given_name'] }],
    },
  ],
};
const mdlDoctype = 'org.iso.18013.5.1.mDL';
const isoNamespace = 'org.iso.18013.5.1';
const mdl = {
  id: 'mDL',
  format: 'mso_mdoc',
  doctype: mdlDoctype,
  claims: ['family_name', 'given_name', 'birth_date'].map((element) => ({
    path: [isoNamespace, element],
  })),
  display: [{ name: 'Mobile driving licence' }],
};
const der = (certificate: x509.X509Certificate) => Buffer.from(certificate.rawData);

/**
 * HAIP 1.0's X.509 as deployed: two app processes on one database behind real nginx, both started at
 * once with the operator's certificate authority (an intermediate under a root, files made here with
 * @peculiar/x509; docs/certificates.md). PUBLIC_BASE_URL is `http://localhost:<port>`, nginx's port on
 * a DNS name, so that `x509_san_dns` has a host to name. Issuance and presentation go through nginx
 * with OWF's wallet libraries; the chains are checked with @peculiar/x509 and jose.
 */
describe('X.509 certificates through the gateway, two instances with the operator’s authority', () => {
  const cleanup = new Cleanup();
  let cluster: Cluster;
  let origin: string;
  let admin: string;
  let root: Issuer;
  let intermediate: Issuer;
  const issuer = () => `${origin}/ctrl/oid4vci/${issuerTenant}`;

  const api = <Body = Json>(
    tenantId: string,
    path: string,
    body?: unknown,
    baseUrl = origin,
  ): Promise<ApiResponse<Body>> =>
    call<Body>(baseUrl, `/ctrl/api/v1.0${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${admin}`, 'x-tenant-id': tenantId },
      body,
    });

  /** The anchor as the API shows it, DER, fetched through nginx. */
  const authorityRoot = async (baseUrl = origin): Promise<Buffer> => {
    const answer = await api<{ certificate: string }>(
      issuerTenant,
      '/certificates/authority',
      undefined,
      baseUrl,
    );
    expect(answer.status).toBe(200);
    return der(new x509.X509Certificate(answer.body.certificate));
  };

  /** One SD-JWT VC received by OWF's wallet library through nginx, and the instance that signed it. */
  async function issue() {
    const offer = await api<Json>(issuerTenant, '/oid4vci/offers', {
      credentialConfigurationId: badge.id,
      claims: { given_name: 'Erika' },
    });
    expect(offer.status).toBe(201);
    const logFrom = cluster.gateway.accessEntries().length;
    const key = await walletKey('ES256');
    const received = await receiveCredentials(offer.body.credentialOfferUri as string, [key]);
    const [signedBy] = await eventually(
      () => {
        const entries = cluster.gateway
          .accessEntries()
          .slice(logFrom)
          .filter((entry) => entry.uri === `/ctrl/oid4vci/${issuerTenant}/credential`);
        return entries.length > 0 ? entries : undefined;
      },
      5_000,
      'the credential request in the access log',
    );
    return {
      credential: received.credentials[0] as string,
      key,
      port: Number(signedBy.upstreams.at(-1)?.split(':')[1]),
    };
  }

  beforeAll(async () => {
    setGlobalConfig({ allowInsecureUrls: true });
    root = await makeCa('Operator root');
    intermediate = await makeCa('Operator issuing CA', root);
    const folder = cleanup.tempDir('x509-ca');
    writeFileSync(join(folder, 'ca.pem'), pemChain(intermediate.certificate, root.certificate));
    writeFileSync(join(folder, 'ca.key'), await intermediate.keyPem());
    cluster = await startCluster(cleanup, 'x509', {
      publicHost: 'localhost',
      env: {
        CERTIFICATE_AUTHORITY_CERT_FILE: join(folder, 'ca.pem'),
        CERTIFICATE_AUTHORITY_KEY_FILE: join(folder, 'ca.key'),
      },
    });
    origin = cluster.origin;
    admin = (await passwordGrant(origin, 'admin', 'admin')).access_token;
    for (const id of [issuerTenant, verifierTenant]) {
      const tenant = await call(origin, '/ctrl/api/v1.0/tenants/create', {
        method: 'POST',
        headers: { authorization: `Bearer ${admin}` },
        query: { id, label: id },
      });
      expect(tenant.status).toBe(201);
    }
    // The verifier trusts the operator's root for credentials signed through x5c (docs/trust-anchors.md).
    const anchor = await api(verifierTenant, '/trust-anchors/create', {
      certificate: root.certificate.toString('pem'),
    });
    expect(anchor.status).toBe(201);
    for (const configuration of [badge, mdl]) {
      expect(
        (await api(issuerTenant, '/oid4vci/credential-configurations/create', configuration))
          .status,
      ).toBe(201);
    }
  }, 120_000);
  afterAll(async () => {
    setGlobalConfig({ allowInsecureUrls: false });
    await cleanup.run();
  }, 60_000);

  it('imports the same files at both starts into one authority; both are ready and show its root', async () => {
    const db = new Client({ connectionString: cluster.databaseUrl });
    await db.connect();
    try {
      const { rows } = await db.query<{ source: string; fingerprint: string; current: boolean }>(
        'SELECT source, fingerprint, current FROM certificate_authority',
      );
      expect(rows).toEqual([
        {
          source: 'configured',
          fingerprint: createHash('sha256').update(der(intermediate.certificate)).digest('hex'),
          current: true,
        },
      ]);
    } finally {
      await db.end();
    }
    for (const instance of cluster.instances) {
      expect((await fetch(`${instance.url}/ctrl/health/ready`)).status).toBe(200);
      expect(instance.logRecords()).toContainEqual(
        expect.objectContaining({ event: 'certificate-authority.configured' }),
      );
      expect((await authorityRoot(instance.url)).equals(der(root.certificate))).toBe(true);
    }
    expect((await authorityRoot()).equals(der(root.certificate))).toBe(true);
  });

  it('issues an ES256 SD-JWT VC whose x5c is leaf and intermediate, chaining to the root; its status list token and signed metadata too', async () => {
    const anchor = await authorityRoot();
    const { credential } = await issue();
    const header = headerOf(credential);
    expect(header).toMatchObject({ alg: 'ES256', typ: 'dc+sd-jwt' });
    const chain = certificatesOf(header.x5c);
    expect(chain).toHaveLength(2);
    expect(chain[1].equal(intermediate.certificate)).toBe(true);
    expect(chain.some((certificate) => certificate.equal(root.certificate))).toBe(false);
    expect(chain[0].subject).toBe(`CN=${issuerTenant}`);
    expect(sanUris(chain[0])).toEqual([issuer()]);
    expect(await chainsTo(chain, anchor)).toBe(true);
    expect(await verifiedByLeaf(credential)).toMatchObject({
      iss: issuer(),
      vct: badge.vct,
    });

    const { uri } = (signedPayload(credential).status as { status_list: { uri: string } })
      .status_list;
    expect(uri.startsWith(`${origin}/ctrl/status-lists/${issuerTenant}/`)).toBe(true);
    const token = await (await fetch(uri)).text();
    expect(headerOf(token).x5c).toEqual(header.x5c);
    expect(await verifiedByLeaf(token)).toMatchObject({ iss: issuer(), sub: uri });

    // Signed metadata, both ways it is answered, from each instance in turn (nginx's round robin).
    const metadataUrl = `${origin}/.well-known/openid-credential-issuer/ctrl/oid4vci/${issuerTenant}`;
    const logFrom = cluster.gateway.accessEntries().length;
    const asJwt = await fetch(metadataUrl, { headers: { accept: 'application/jwt' } });
    expect(asJwt.headers.get('content-type')).toMatch(/^application\/jwt/);
    const inJson = ((await (await fetch(metadataUrl)).json()) as Json).signed_metadata as string;
    for (const jwt of [await asJwt.text(), inJson]) {
      expect(headerOf(jwt)).toMatchObject({
        typ: 'openidvci-issuer-metadata+jwt',
        x5c: header.x5c,
      });
      expect(await chainsTo(certificatesOf(headerOf(jwt).x5c), anchor)).toBe(true);
      expect(await verifiedByLeaf(jwt)).toMatchObject({ iss: issuer(), sub: issuer() });
    }
    const served = await eventually(
      () => {
        const entries = cluster.gateway
          .accessEntries()
          .slice(logFrom)
          .filter((entry) => entry.uri.startsWith('/.well-known/openid-credential-issuer/'));
        return entries.length >= 2 ? entries : undefined;
      },
      5_000,
      'the metadata requests in the access log',
    );
    expect(new Set(served.map((entry) => entry.upstreams.at(-1))).size).toBe(2);
  });

  it.each(['x509_hash', 'x509_san_dns'])(
    'verifies a %s request resolved by a wallet trusting the root, through nginx',
    async (clientIdPrefix) => {
      const anchor = await authorityRoot();
      const { credential, key } = await issue();
      const made = await api<Json>(
        verifierTenant,
        '/oid4vp/requests',
        clientIdPrefix === 'x509_hash' ? { dcqlQuery } : { dcqlQuery, clientIdPrefix },
      );
      expect(made.status).toBe(201);
      const clientId = made.body.clientId as string;
      const resolved = await resolveRequest(made.body.authorizationRequestUri as string, [anchor]);
      expect(resolved.client.prefix).toBe(clientIdPrefix);
      expect(resolved.jar?.signer.method).toBe('x5c');
      const requestChain = certificatesOf(resolved.jar!.jwt.header.x5c);
      expect(requestChain.map((certificate) => certificate.subject)).toEqual([
        `CN=${verifierTenant}`,
        'CN=Operator issuing CA',
      ]);
      expect(clientId).toBe(
        clientIdPrefix === 'x509_hash'
          ? `x509_hash:${createHash('sha256').update(der(requestChain[0])).digest('base64url')}`
          : 'x509_san_dns:localhost',
      );
      const request = resolved.authorizationRequestPayload;
      const presentation = await presentWithKeyBinding(credential, { given_name: true }, key, {
        nonce: request.nonce,
        aud: clientId,
      });
      expect((await answerRequest(resolved, { badge: [presentation] })).status).toBe(200);
      for (const instance of cluster.instances) {
        const outcome = await api<Json>(
          verifierTenant,
          `/oid4vp/requests/${made.body.id as string}`,
          undefined,
          instance.url,
        );
        expect(outcome.body).toMatchObject({
          status: 'verified',
          clientId,
          presented: {
            badge: [
              {
                issuer: issuer(),
                claims: { given_name: 'Erika' },
                certificateChain: {
                  leafSubject: `CN=${issuerTenant}`,
                  anchorSubject: 'CN=Operator root',
                },
              },
            ],
          },
        });
      }
    },
  );

  it('signs with a chain imported from the tenant’s own CA at once, whichever instance signs', async () => {
    const ownCa = await makeCa('University CA');
    const csr = await api<{ csr: string }>(issuerTenant, '/certificates/csr', {});
    expect(csr.status).toBe(201);
    const leaf = await signLeaf(ownCa, csr.body.csr);
    expect(sanUris(leaf)).toEqual([issuer()]);
    const imported = await api<Json>(issuerTenant, '/certificates/import', {
      chain: pemChain(leaf, ownCa.certificate),
    });
    expect(imported.status).toBe(201);
    expect(imported.body).toMatchObject({ status: 'active', source: 'imported' });
    const expected = [der(leaf).toString('base64')];
    expect(imported.body.x5c).toEqual(expected);

    // Credentials until each instance has signed one: every one with the imported chain.
    const signers = new Set<number>();
    for (let attempt = 0; attempt < 5 && signers.size < 2; attempt++) {
      const { credential, port } = await issue();
      // One request more through nginx moves its round robin on, should this instance sign again.
      if (signers.has(port)) await authorityRoot();
      signers.add(port);
      expect(headerOf(credential).x5c).toEqual(expected);
      expect(await chainsTo(certificatesOf(expected), der(ownCa.certificate))).toBe(true);
      expect(await verifiedByLeaf(credential)).toMatchObject({ iss: issuer() });
    }
    expect([...signers].sort()).toEqual(cluster.instances.map((instance) => instance.port).sort());
    // And each instance's metadata is signed by it.
    for (const instance of cluster.instances) {
      const answer = await fetch(
        `${instance.url}/.well-known/openid-credential-issuer/ctrl/oid4vci/${issuerTenant}`,
        { headers: { accept: 'application/jwt' } },
      );
      expect(headerOf(await answer.text()).x5c).toEqual(expected);
    }
  });

  it('issues an mDL whose document signer chains to the root, presented to the other tenant over direct_post.jwt, read at each instance', async () => {
    const offer = await api<Json>(issuerTenant, '/oid4vci/offers', {
      credentialConfigurationId: mdl.id,
      claims: {
        [isoNamespace]: {
          family_name: 'Mustermann',
          given_name: 'Erika',
          birth_date: '1963-08-12',
        },
      },
    });
    expect(offer.status).toBe(201);
    const key = await walletKey('ES256');
    const [mdoc] = (await receiveCredentials(offer.body.credentialOfferUri as string, [key]))
      .credentials as string[];
    const made = await api<Json>(verifierTenant, '/oid4vp/requests', {
      dcqlQuery: {
        credentials: [
          {
            id: 'mdl',
            format: 'mso_mdoc',
            meta: { doctype_value: mdlDoctype },
            claims: [{ path: [isoNamespace, 'birth_date'], intent_to_retain: false }],
          },
        ],
      },
      responseMode: 'direct_post.jwt',
    });
    expect(made.status).toBe(201);
    const request = await fetchMdocRequest(made.body.authorizationRequestUri as string);
    const presentation = await presentMdoc(
      mdoc,
      mdlDoctype,
      [[isoNamespace, 'birth_date']],
      await exportJWK(key.privateKey),
      await handTranscript(request),
    );
    expect((await postMdocAnswer(request, { mdl: [presentation] })).status).toBe(200);
    for (const instance of cluster.instances) {
      const outcome = await api<Json>(
        verifierTenant,
        `/oid4vp/requests/${made.body.id as string}`,
        undefined,
        instance.url,
      );
      expect(outcome.body).toMatchObject({
        status: 'verified',
        presented: {
          mdl: [
            {
              format: 'mso_mdoc',
              doctype: mdlDoctype,
              status: 'valid',
              claims: { [isoNamespace]: { birth_date: '1963-08-12' } },
              certificateChain: { anchorSubject: 'CN=Operator root' },
            },
          ],
        },
      });
      const claims = (outcome.body.presented as { mdl: { claims: Json }[] }).mdl[0].claims;
      expect(Object.keys(claims[isoNamespace] as Json)).toEqual(['birth_date']);
    }
  });
});
