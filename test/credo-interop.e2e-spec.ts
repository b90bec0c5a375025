import 'reflect-metadata';
import { type SdJwtVcIssuer, type SdJwtVcRecord } from '@credo-ts/core';
import { calculateJwkThumbprint, type JWK } from 'jose';
import { CertificateAuthorityService } from '../src/certificates/certificate-authority.service.js';
import { pemOf } from '../src/x509/certificate.js';
import { createCredoIssuerCa } from './support/credo-ca.js';
import {
  credoDidIssuer,
  issueWithCredo,
  presentWithCredo,
  receiveWithCredo,
  startCredoAgent,
  type CredoAgent,
} from './support/credo-wallet.js';
import { sdJwtBadge } from './support/oid4vci-fixtures.js';
import { jsonPart, signedPayload } from './support/oid4vci-holder.js';
import { startTestService, type TestService } from './support/test-service.js';

type Json = Record<string, unknown>;

const identityVct = 'https://credo.example/credentials/identity';
/** A DCQL query for given_name only, of the vct one test's credential alone has. */
const queryFor = (vct: string) => ({
  credentials: [
    {
      id: 'identity',
      format: 'dc+sd-jwt',
      meta: { vct_values: [vct] },
      claims: [{ path: ['given_name'] }],
    },
  ],
});

/**
 * Credo 0.6 (OWF's agent framework, keys and records in memory) against the service: as the wallet of
 * a tenant's OpenID4VCI issuer (its SD-JWT VCs verified through their x5c chain, HAIP 1.0), and as a
 * second issuer whose SD-JWT VCs (did:key, x5c) its holder presents to another tenant's OpenID4VP
 * verifier under the DID and both X.509 client identifiers, trusted through a trust anchor or refused
 * for another. One service and one Credo agent for the file.
 */
describe('Credo 0.6 as wallet and as a second issuer', () => {
  let service: TestService;
  let credo: CredoAgent;

  beforeAll(async () => {
    service = await startTestService();
    for (const id of ['univ', 'shop']) await service.client().createTenant({ id, label: id });
    const made = await service.request('/ctrl/api/v1.0/oid4vci/credential-configurations/create', {
      method: 'POST',
      headers: { 'x-tenant-id': 'univ' },
      body: sdJwtBadge,
    });
    expect(made.status).toBe(201);
    credo = await startCredoAgent();
  });
  afterAll(async () => {
    await credo?.shutdown();
    await service?.close();
  });

  /** The API opens a presentation request at shop. */
  async function openRequest(body: Json) {
    const created = await service.request<Json>('/ctrl/api/v1.0/oid4vp/requests', {
      method: 'POST',
      headers: { 'x-tenant-id': 'shop' },
      body,
    });
    expect(created.status).toBe(201);
    return { id: created.body.id as string, link: created.body.authorizationRequestUri as string };
  }

  /** The development authority's root (PEM), which a wallet must trust for shop's x509 client ids. */
  async function authorityRoot(): Promise<string> {
    const root = (await service.app.get(CertificateAuthorityService).current())?.root;
    if (root === undefined) throw new Error('the test service has no development authority');
    return pemOf([root]);
  }

  const readRequest = async (id: string) => {
    const read = await service.request<Json>(`/ctrl/api/v1.0/oid4vp/requests/${id}`, {
      headers: { 'x-tenant-id': 'shop' },
    });
    expect(read.status).toBe(200);
    return read.body;
  };

  /** The RFC 7638 thumbprint (base64url) of the key a Credo SD-JWT VC is bound to. */
  const holderThumbprintOf = (compact: string) =>
    calculateJwkThumbprint((signedPayload(compact).cnf as { jwk: JWK }).jwk);

  /** An offer of univ's SD-JWT VC badge for Erika. */
  async function univOffer(): Promise<Json> {
    const offer = await service.request<Json>('/ctrl/api/v1.0/oid4vci/offers', {
      method: 'POST',
      headers: { 'x-tenant-id': 'univ' },
      body: { credentialConfigurationId: sdJwtBadge.id, claims: { given_name: 'Erika' } },
    });
    expect(offer.status).toBe(201);
    return offer.body;
  }

  it('receives univ’s x5c SD-JWT VC when it trusts the service’s authority, and presents it back to shop', async () => {
    const wallet = await startCredoAgent({ trustedCertificates: [await authorityRoot()] });
    try {
      const [record] = await receiveWithCredo(
        wallet,
        (await univOffer()).credentialOfferUri as string,
      );
      const compact = (record as SdJwtVcRecord).credentialInstances[0].compactSdJwtVc;
      // Credo verified it through the x5c chain (HAIP 1.0 §6.1.1), the leaf naming univ's `iss`.
      expect(jsonPart(compact.split('.')[0])).toMatchObject({
        typ: 'dc+sd-jwt',
        alg: 'ES256',
        x5c: [expect.any(String)],
      });
      expect(await wallet.sdJwtVc.getAll()).toHaveLength(1);

      // The whole loop: our issuer, Credo's wallet, our verifier.
      const request = await openRequest({ dcqlQuery: queryFor(sdJwtBadge.vct!) });
      const { answer } = await presentWithCredo(wallet, request.link);
      expect(answer).toMatchObject({ ok: true, serverResponse: { status: 200 } });
      expect(await readRequest(request.id)).toMatchObject({
        status: 'verified',
        presented: {
          identity: [
            {
              issuer: `${service.publicBaseUrl}/ctrl/oid4vci/univ`,
              vct: sdJwtBadge.vct,
              claims: { given_name: 'Erika' },
            },
          ],
        },
      });
    } finally {
      await wallet.shutdown();
    }
  });

  it('refuses univ’s x5c SD-JWT VC when it trusts another root, and keeps nothing', async () => {
    // A root the service never used: Credo's own test authority.
    const ca = await createCredoIssuerCa(credo, 'other-root.credo.invalid');
    const wallet = await startCredoAgent({ trustedCertificates: [ca.rootPem] });
    try {
      const offer = await univOffer();
      const refused = await receiveWithCredo(wallet, offer.credentialOfferUri as string).then(
        () => null,
        (error: Error) => error.message,
      );
      expect(refused).toContain('Failed to validate sd-jwt-vc credentials');
      // Refused by the chain's trust, not for want of a way to find the key (before x5c it was).
      expect(refused).not.toContain('Only did and x5c are supported');
      expect(await wallet.sdJwtVc.getAll()).toEqual([]);
      // Everything before Credo's own check worked: the service issued to Credo's proven key.
      const issued = await service.request<Json>(
        `/ctrl/api/v1.0/oid4vci/offers/${offer.id as string}`,
        { headers: { 'x-tenant-id': 'univ' } },
      );
      expect(issued.body).toMatchObject({ status: 'issued', credentialIds: [expect.any(String)] });
    } finally {
      await wallet.shutdown();
    }
  });

  describe('Credo’s own SD-JWT VC (did:key issuer), presented to shop’s verifier', () => {
    let issuer: SdJwtVcIssuer & { method: 'did' };
    beforeAll(async () => {
      issuer = (await credoDidIssuer(credo)) as typeof issuer;
    });

    it.each(['direct_post', 'direct_post.jwt'])(
      'verifies at shop by %s, with only the claim asked for disclosed',
      async (responseMode) => {
        const vct = `${identityVct}/${responseMode}`;
        const did = issuer.didUrl.split('#')[0];
        const payload = { vct, iss: did, given_name: 'Erika', family_name: 'Mustermann' };
        const { compact } = await issueWithCredo(credo, issuer, payload, [
          'given_name',
          'family_name',
        ]);
        const request = await openRequest({
          dcqlQuery: queryFor(vct),
          responseMode,
          trustedIssuers: [did],
          clientIdPrefix: 'decentralized_identifier',
        });

        const { resolved, answer } = await presentWithCredo(credo, request.link);

        // Credo verified the request object through the tenant's DID alone (OpenID4VP 1.0 §5.9.3).
        expect(resolved.verifier.clientIdPrefix).toBe('decentralized_identifier');
        expect(resolved.signedAuthorizationRequest?.signer.method).toBe('did');
        expect(answer).toMatchObject({ ok: true, serverResponse: { status: 200, body: {} } });
        if (responseMode === 'direct_post.jwt') {
          const jwe = (answer.authorizationResponse as { response: string }).response;
          expect(jsonPart(jwe.split('.')[0])).toMatchObject({ alg: 'ECDH-ES', enc: 'A128GCM' });
        }
        expect(await readRequest(request.id)).toMatchObject({
          status: 'verified',
          refusedAnswers: 0,
          presented: {
            identity: [
              {
                format: 'dc+sd-jwt',
                issuer: did,
                vct,
                status: 'none',
                holderKeyThumbprint: await holderThumbprintOf(compact),
                claims: { given_name: 'Erika' },
              },
            ],
          },
        });
        const { presented } = await readRequest(request.id);
        const [entry] = (presented as { identity: { claims: Json }[] }).identity;
        expect(entry.claims).not.toHaveProperty('family_name');
      },
    );

    it.each([
      ['x509_hash', 'direct_post'],
      ['x509_hash', 'direct_post.jwt'],
      ['x509_san_dns', 'direct_post'],
      ['x509_san_dns', 'direct_post.jwt'],
    ])(
      'verifies shop’s %s request object through the authority’s root, and answers it by %s',
      async (clientIdPrefix, responseMode) => {
        const wallet = await startCredoAgent({ trustedCertificates: [await authorityRoot()] });
        try {
          const own = await credoDidIssuer(wallet);
          const vct = `${identityVct}/${clientIdPrefix}/${responseMode}`;
          const did = (own as { didUrl: string }).didUrl.split('#')[0];
          await issueWithCredo(wallet, own, { vct, iss: did, given_name: 'Erika' }, ['given_name']);
          const request = await openRequest({
            dcqlQuery: queryFor(vct),
            clientIdPrefix,
            responseMode,
          });
          const { resolved, answer } = await presentWithCredo(wallet, request.link);
          expect(resolved.verifier.clientIdPrefix).toBe(clientIdPrefix);
          expect(resolved.signedAuthorizationRequest?.signer.method).toBe('x5c');
          expect(answer).toMatchObject({ ok: true, serverResponse: { status: 200 } });
          expect(await readRequest(request.id)).toMatchObject({
            status: 'verified',
            clientId: expect.stringMatching(new RegExp(`^${clientIdPrefix}:`)),
            presented: { identity: [{ issuer: did, vct, claims: { given_name: 'Erika' } }] },
          });
        } finally {
          await wallet.shutdown();
        }
      },
    );

    it('will not answer an x509_hash request whose chain it cannot trust', async () => {
      const request = await openRequest({
        dcqlQuery: queryFor(identityVct),
        clientIdPrefix: 'x509_hash',
      });
      // The file's agent trusts no root.
      await expect(presentWithCredo(credo, request.link)).rejects.toThrow();
      expect(await readRequest(request.id)).toMatchObject({ status: 'pending', refusedAnswers: 0 });
    });
  });

  it('signs an x5c SD-JWT VC that a Credo trusting its root verifies; shop’s verifier takes it without trust anchors, refuses it once its anchor is another root, and takes it again with Credo’s root as an anchor too', async () => {
    const vct = `${identityVct}/x5c`;
    const ca = await createCredoIssuerCa(credo, 'issuer.credo.invalid');
    const { compact } = await issueWithCredo(
      credo,
      { method: 'x5c', x5c: [ca.leaf], issuer: ca.issuer },
      { vct, iss: ca.issuer, given_name: 'Erika' },
      ['given_name'],
    );
    const header = jsonPart(compact.split('.')[0]);
    expect(header).toMatchObject({
      typ: 'dc+sd-jwt',
      alg: 'ES256',
      x5c: [ca.leaf.toString('base64')],
    });

    // The credential is sound: a verifier trusting the root accepts it, one trusting nothing does not.
    const trusting = await startCredoAgent({ trustedCertificates: [ca.rootPem] });
    const untrusting = await startCredoAgent();
    try {
      expect(await trusting.sdJwtVc.verify({ compactSdJwtVc: compact })).toMatchObject({
        isValid: true,
      });
      expect(await untrusting.sdJwtVc.verify({ compactSdJwtVc: compact })).toMatchObject({
        isValid: false,
      });
    } finally {
      await trusting.shutdown();
      await untrusting.shutdown();
    }

    // The file's agent trusts no X.509 root: it knows shop by its DID. Without trust anchors shop
    // takes any chain that holds together and names iss (docs/trust-anchors.md).
    const taken = await openRequest({
      dcqlQuery: queryFor(vct),
      clientIdPrefix: 'decentralized_identifier',
    });
    expect((await presentWithCredo(credo, taken.link)).answer).toMatchObject({
      ok: true,
      serverResponse: { status: 200 },
    });
    expect(await readRequest(taken.id)).toMatchObject({ status: 'verified' });

    // With an anchor of another root (the last test of the file: shop keeps its anchors), refused.
    const other = await createCredoIssuerCa(credo, 'other.credo.invalid');
    const anchored = await service.request('/ctrl/api/v1.0/trust-anchors/create', {
      method: 'POST',
      headers: { 'x-tenant-id': 'shop' },
      body: { certificate: other.rootPem },
    });
    expect(anchored.status).toBe(201);
    const request = await openRequest({
      dcqlQuery: queryFor(vct),
      clientIdPrefix: 'decentralized_identifier',
    });
    const { answer } = await presentWithCredo(credo, request.link);

    // Refused as not bound (OpenID4VP 1.0 §8.2): the issuer's trust did not verify.
    expect(answer).toMatchObject({
      ok: false,
      serverResponse: { status: 400, body: { error: 'invalid_request' } },
    });
    expect(await readRequest(request.id)).toMatchObject({ status: 'pending', refusedAnswers: 1 });

    // Credo's root as one more anchor: the same credential verifies, through the chain it names.
    const own = await service.request('/ctrl/api/v1.0/trust-anchors/create', {
      method: 'POST',
      headers: { 'x-tenant-id': 'shop' },
      body: { certificate: ca.rootPem, label: 'Credo test issuer' },
    });
    expect(own.status).toBe(201);
    const trusted = await openRequest({
      dcqlQuery: queryFor(vct),
      clientIdPrefix: 'decentralized_identifier',
    });
    expect((await presentWithCredo(credo, trusted.link)).answer).toMatchObject({
      ok: true,
      serverResponse: { status: 200 },
    });
    const verified = await readRequest(trusted.id);
    expect(verified).toMatchObject({ status: 'verified' });
    // The outcome names the anchor the chain ended at (docs/trust-anchors.md).
    expect(JSON.stringify(verified.presented)).toMatch(/"anchorSubject":"[^"]+"/);
  });
});
