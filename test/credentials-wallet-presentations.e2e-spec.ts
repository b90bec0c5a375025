import { setGlobalConfig } from '@openid4vc/openid4vci';
import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import {
  type PresentationCheck,
  type PresentationExpectation,
  WalletPresentationsService,
} from '../src/credentials/verifying/wallet-presentations.service.js';
import { alumniCredential, issue, makeHolder, type Json } from './support/credentials-harness.js';
import { receiveCredentials, signedPayload } from './support/oid4vci-holder.js';
import { thumbprintOf, walletKey } from './support/oid4vci-wallet.js';
import {
  issuerMetadataOf,
  issueTestSdJwtVc,
  presentTestSdJwtVc,
  statusListTokenOf,
  testIssuer,
  type TestIssuer,
} from './support/sd-jwt-wallet.js';
import { freePort, startTestService, type TestService } from './support/test-service.js';

const diploma = {
  id: 'Diploma',
  format: 'dc+sd-jwt',
  vct: 'https://university.example/credentials/diploma',
  claims: [
    { path: ['given_name'], mandatory: true },
    { path: ['family_name'], mandatory: true },
  ],
};
const nonce = 'wallet-nonce-4f1c9a0e';
const clientId =
  'decentralized_identifier:did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK';

/**
 * The wallet-presentation verifier inside the real service: SD-JWT VCs from our own OpenID4VCI issuer
 * (key and Token Status List of another tenant, read in process) and from a foreign issuer whose JWT
 * VC Issuer Metadata and status list a loopback server publishes, and a Data Integrity presentation.
 */
describe('Wallet presentations, verified by the service', () => {
  let service: TestService;
  let foreign: Server;
  let foreignOrigin: string;
  let foreignIssuer: TestIssuer;
  const routes = new Map<string, string>();

  beforeAll(async () => {
    setGlobalConfig({ allowInsecureUrls: true });
    // What local mode allows by default: plain http to loopback, where the foreign issuer listens.
    service = await startTestService({ env: { STATUS_LIST_ALLOW_PRIVATE_TARGETS: 'true' } });
    for (const id of ['univ', 'shop']) await service.client().createTenant({ id, label: id });
    const made = await service.request('/ctrl/api/v1.0/oid4vci/credential-configurations/create', {
      method: 'POST',
      headers: { 'x-tenant-id': 'univ' },
      body: diploma,
    });
    expect(made.status).toBe(201);

    foreign = createServer((request, response) => {
      const body = routes.get(request.url ?? '');
      if (body === undefined) return response.writeHead(404).end();
      response.writeHead(200, { 'cache-control': 'max-age=60' }).end(body);
    });
    await new Promise<void>((resolve) => foreign.listen(0, '127.0.0.1', resolve));
    foreignOrigin = `http://127.0.0.1:${(foreign.address() as AddressInfo).port}`;
    foreignIssuer = await testIssuer(`${foreignOrigin}/issuer`);
    routes.set(
      '/.well-known/jwt-vc-issuer/issuer',
      JSON.stringify(issuerMetadataOf(foreignIssuer)),
    );
    routes.set(
      '/status/1',
      await statusListTokenOf(foreignIssuer, `${foreignOrigin}/status/1`, [0, 1]),
    );
  });
  afterAll(async () => {
    setGlobalConfig({ allowInsecureUrls: false });
    await new Promise<void>((resolve) => foreign.close(() => resolve()));
    await service.close();
  });

  const verify = (
    format: PresentationExpectation['format'],
    presentation: unknown,
    options: Partial<PresentationExpectation> = {},
  ): Promise<PresentationCheck> =>
    service.app.get(WalletPresentationsService).verify({
      tenantId: 'shop',
      format,
      presentation,
      nonce,
      clientId,
      signal: AbortSignal.timeout(10_000),
      ...options,
    });
  const outcome = (check: PresentationCheck) => (check.verified ? 'verified' : check.code);

  it("verifies our issuer's SD-JWT VC with key binding, then refuses it once revoked through the API", async () => {
    const offer = await service.request<Json>('/ctrl/api/v1.0/oid4vci/offers', {
      method: 'POST',
      headers: { 'x-tenant-id': 'univ' },
      body: {
        credentialConfigurationId: 'Diploma',
        claims: { given_name: 'Erika', family_name: 'Mustermann' },
      },
    });
    expect(offer.status).toBe(201);
    const holder = await walletKey('ES256');
    const received = await receiveCredentials(offer.body.credentialOfferUri as string, [holder]);
    const sdJwt = received.credentials[0] as string;
    const presented = await presentTestSdJwtVc(
      sdJwt,
      holder,
      { nonce, aud: clientId },
      { given_name: true },
    );

    const check = await verify('dc+sd-jwt', presented);
    expect(check).toEqual({
      verified: true,
      presentation: {
        format: 'dc+sd-jwt',
        issuer: `${service.publicBaseUrl}/ctrl/oid4vci/univ`,
        vct: diploma.vct,
        claims: expect.objectContaining({ given_name: 'Erika' }),
        holderKeyThumbprint: await thumbprintOf(holder),
        holderBinding: true,
        status: 'valid',
        // The issuing tenant's certificate, which its SD-JWT VCs carry (HAIP 1.0).
        x5c: expect.objectContaining({ leafSubject: 'CN=univ' }),
      },
    });
    const { claims } = (check as { presentation: { claims: Json } }).presentation;
    expect(claims).not.toHaveProperty('family_name');
    expect(claims).not.toHaveProperty('cnf');
    expect(claims).not.toHaveProperty('_sd');
    expect(claims.status).toEqual(signedPayload(sdJwt).status);

    const [credentialId] = (
      await service.request<Json>(`/ctrl/api/v1.0/oid4vci/offers/${offer.body.id as string}`, {
        headers: { 'x-tenant-id': 'univ' },
      })
    ).body.credentialIds as string[];
    const revoked = await service.request('/ctrl/api/v1.0/credentials/status', {
      method: 'POST',
      headers: { 'x-tenant-id': 'univ' },
      body: { credentialId, credentialStatus: { statusPurpose: 'revocation' } },
    });
    expect(revoked.status).toBe(204);
    const after = await verify('dc+sd-jwt', presented);
    // After the holder's KB-JWT verified: bound to the request, so it may end it (docs/oid4vp.md).
    expect(after).toEqual({
      verified: false,
      code: 'credential_revoked',
      reason: expect.stringMatching(/revoked/),
      bound: true,
    });
  });

  it('verifies a foreign issuer through its JWT VC Issuer Metadata and status list on loopback, and refuses it when the trusted issuers exclude it', async () => {
    const holder = await walletKey('EdDSA');
    const present = async (idx: number) =>
      presentTestSdJwtVc(
        await issueTestSdJwtVc(foreignIssuer, {
          holder,
          status: { idx, uri: `${foreignOrigin}/status/1` },
        }),
        holder,
        { nonce, aud: clientId },
      );
    const valid = await present(0);
    expect(await verify('dc+sd-jwt', valid)).toMatchObject({
      verified: true,
      presentation: { issuer: foreignIssuer.iss, status: 'valid', holderBinding: true },
    });
    expect(outcome(await verify('dc+sd-jwt', await present(1)))).toBe('credential_revoked');
    expect(outcome(await verify('dc+sd-jwt', valid, { trustedIssuers: [foreignIssuer.iss] }))).toBe(
      'verified',
    );
    const untrusted = await verify('dc+sd-jwt', valid, {
      trustedIssuers: [`${service.publicBaseUrl}/ctrl/oid4vci/univ`],
    });
    expect(untrusted).toEqual({
      verified: false,
      code: 'issuer_not_trusted',
      reason: `the issuer '${foreignIssuer.iss}' is not in the trusted issuers list`,
    });
    // Another audience, another nonce: the wallet's answer was for another request.
    const elsewhere = await verify('dc+sd-jwt', valid, { clientId: 'decentralized_identifier:x' });
    expect(outcome(elsewhere)).toBe('audience_mismatch');
    expect(elsewhere).not.toHaveProperty('bound');
    expect(outcome(await verify('dc+sd-jwt', valid, { nonce: 'another' }))).toBe('nonce_mismatch');
  });

  it('refuses an issuer whose metadata host does not answer, naming the check', async () => {
    const unreachable = await testIssuer(`http://127.0.0.1:${await freePort()}/issuer`);
    const holder = await walletKey('ES256');
    const presented = await presentTestSdJwtVc(
      await issueTestSdJwtVc(unreachable, { holder }),
      holder,
      { nonce, aud: clientId },
    );
    const check = await verify('dc+sd-jwt', presented);
    expect(check).toEqual({
      verified: false,
      code: 'issuer_unresolved',
      reason: expect.stringMatching(/^the issuer's key could not be found: .*could not be fetched/),
    });
  });

  it('verifies a Data Integrity presentation whose challenge is the nonce and domain the client id', async () => {
    const holder = makeHolder();
    const issued = await issue(
      service,
      'univ',
      alumniCredential({ credentialSubject: { id: holder.did, alumniOf: 'Examples' } }),
    );
    expect(issued.status).toBe(201);
    const credential = issued.body.verifiableCredential;
    const presentation = await holder.present([credential], nonce, clientId);
    const check = await verify('ldp_vc', presentation);
    expect(check).toEqual({
      verified: true,
      presentation: {
        format: 'ldp_vc',
        issuer: expect.stringMatching(/^did:key:/),
        types: ['VerifiableCredential', 'AlumniCredential'],
        claims: expect.objectContaining({
          credentialSubject: { id: holder.did, alumniOf: 'Examples' },
        }),
        holderKeyThumbprint: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        holderBinding: true,
        status: expect.stringMatching(/^(valid|none)$/),
      },
    });
    expect((check as { presentation: { claims: Json } }).presentation.claims).not.toHaveProperty(
      'proof',
    );
    const otherChallenge = await holder.present([credential], 'another', clientId);
    expect(outcome(await verify('ldp_vc', otherChallenge))).toBe('nonce_mismatch');
    const otherDomain = await holder.present([credential], nonce, 'x509_san_dns:rp.example');
    expect(outcome(await verify('ldp_vc', otherDomain))).toBe('audience_mismatch');
    const two = await holder.present([credential, credential], nonce, clientId);
    expect(outcome(await verify('ldp_vc', two))).toBe('presentation_malformed');
  });
});
