import { X509Certificate } from 'node:crypto';
import { VerificationAssessmentId } from '@auth0/mdl';
import { setGlobalConfig } from '@openid4vc/openid4vci';
import { exportJWK, type JWK } from 'jose';
import {
  dcApiTranscript,
  fetchMdocRequest,
  handTranscript,
  postMdocAnswer,
  presentMdoc,
  verifiedWithAuth0,
} from './support/mdoc-holder.js';
import { isoNamespace as ns, mdlDoctype as doctype } from './support/mdoc-fixtures.js';
import { receiveCredentials } from './support/oid4vci-holder.js';
import { thumbprintOf, walletKey } from './support/oid4vci-wallet.js';
import {
  dcApiResponseData,
  resolveDcApiRequest,
  type DcApiRequest,
} from './support/oid4vp-dc-api-wallet.js';
import { startTestService, type TestService } from './support/test-service.js';
import { makeCertificate, type TestCertificate } from './support/x509-test-pki.js';

type Json = Record<string, unknown>;

const origin = 'https://shop.example';
const offered = {
  family_name: 'Mustermann',
  given_name: 'Erika',
  birth_date: '1963-08-12',
  age_over_18: true,
  document_number: 'D-1234567',
};
/** What the verifier asks for, and all it may learn: the rest of the mDL stays with the holder. */
const chosen = ['family_name', 'age_over_18'];
const chosenPaths = chosen.map((element): [string, string] => [ns, element]);
const disclosed = { [ns]: { family_name: 'Mustermann', age_over_18: true } };
const dcqlQuery = {
  credentials: [
    {
      id: 'mdl',
      format: 'mso_mdoc',
      meta: { doctype_value: doctype },
      claims: chosenPaths.map((path) => ({ path, intent_to_retain: false })),
    },
  ],
};

/**
 * One mobile driving licence end to end, across tenants and libraries (docs/mdoc.md): tenant `dmv`
 * issues it to OWF's wallet library (@openid4vc/openid4vci 0.4); @auth0/mdl, the independent library,
 * verifies it trusting only the IACA the service publishes, then as the holder presents two chosen
 * elements to tenant `shop`, which holds that IACA as a trust anchor, over OpenID4VP `direct_post.jwt`
 * (B.2.6.1) and over the Digital Credentials API (`dc_api`, `dc_api.jwt`; B.2.6.2). Tenant `bar`, whose
 * only anchor is another IACA, refuses the same mDL.
 */
describe('an mDL from one tenant’s issuer to another tenant’s verifier', () => {
  let service: TestService;
  /** Tenant dmv's IACA as `GET /certificates/authority` publishes it (PEM). */
  let iaca: string;
  let iacaSubject: string;
  let otherIaca: TestCertificate;

  const api = <Body = Json>(tenantId: string, path: string, body?: unknown) =>
    service.request<Body>(`/ctrl/api/v1.0${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { 'x-tenant-id': tenantId },
      body,
    });

  beforeAll(async () => {
    setGlobalConfig({ allowInsecureUrls: true });
    service = await startTestService();
    for (const id of ['dmv', 'shop', 'bar']) {
      await service.client().createTenant({ id, label: id });
    }
    const configuration = await api('dmv', '/oid4vci/credential-configurations/create', {
      id: 'mDL',
      format: 'mso_mdoc',
      doctype,
      claims: Object.keys(offered).map((element) => ({ path: [ns, element] })),
      display: [{ name: 'Mobile driving licence', locale: 'en' }],
    });
    expect(configuration.status).toBe(201);
    const authority = await api<{ certificate: string }>('dmv', '/certificates/authority');
    expect(authority.status).toBe(200);
    iaca = authority.body.certificate;
    const anchor = await api<{ subject: string }>('shop', '/trust-anchors/create', {
      certificate: iaca,
    });
    expect(anchor.status).toBe(201);
    iacaSubject = anchor.body.subject;
    otherIaca = await makeCertificate('Another IACA', { ca: true });
    const elsewhere = await api('bar', '/trust-anchors/create', { certificate: otherIaca.pem });
    expect(elsewhere.status).toBe(201);
  });
  afterAll(async () => {
    setGlobalConfig({ allowInsecureUrls: false });
    await service?.close();
  });

  /** A redirect request of `tenantId` for the chosen elements, read by the holder from its link. */
  async function openRedirect(tenantId: string) {
    const created = await api(tenantId, '/oid4vp/requests', {
      dcqlQuery,
      responseMode: 'direct_post.jwt',
    });
    expect(created.status).toBe(201);
    const request = await fetchMdocRequest(created.body.authorizationRequestUri as string);
    return { id: created.body.id as string, request };
  }

  it('is issued by dmv, verified by @auth0/mdl through dmv’s IACA, and shows shop the chosen elements only', async () => {
    // 1-2. dmv offers the mDL; OWF's wallet library takes the offer with the holder's device key.
    const offer = await api('dmv', '/oid4vci/offers', {
      credentialConfigurationId: 'mDL',
      claims: { [ns]: offered },
    });
    expect(offer.status).toBe(201);
    const key = await walletKey('ES256');
    const received = await receiveCredentials(offer.body.credentialOfferUri as string, [key]);
    const [mdl] = received.credentials as string[];
    const device: JWK = await exportJWK(key.privateKey);
    const present = (transcript: Uint8Array) =>
      presentMdoc(mdl, doctype, chosenPaths, device, transcript);

    // 3-4. shop asks over direct_post.jwt; @auth0/mdl presents, and its own Verifier checks the very
    // DeviceResponse it answers with, trusting dmv's published IACA and nothing else.
    const redirect = await openRedirect('shop');
    expect(redirect.request.responseMode).toBe('direct_post.jwt');
    const transcript = await handTranscript(redirect.request);
    const presentation = await present(transcript);
    const bytes = Buffer.from(presentation, 'base64url');
    const checked = await verifiedWithAuth0(bytes, Buffer.from(transcript), [iaca]);
    expect(checked.docType).toBe(doctype);
    expect(checked.getIssuerNameSpace(ns)).toEqual({
      family_name: 'Mustermann',
      age_over_18: true,
    });
    await expect(
      verifiedWithAuth0(bytes, Buffer.from(transcript), [otherIaca.pem]),
    ).rejects.toMatchObject({
      code: VerificationAssessmentId.ISSUER_AUTH.IssuerCertificateValidity,
    });

    expect(await postMdocAnswer(redirect.request, { mdl: [presentation] })).toEqual({
      status: 200,
      body: {},
    });
    const outcome = await api('shop', `/oid4vp/requests/${redirect.id}`);
    expect(outcome.body).toMatchObject({ status: 'verified', refusedAnswers: 0 });
    expect(outcome.body.presented).toEqual({
      mdl: [
        {
          format: 'mso_mdoc',
          doctype,
          issuer: expect.any(String) as string,
          holderKeyThumbprint: await thumbprintOf(key),
          status: 'valid',
          certificateChain: {
            leafSubject: expect.any(String) as string,
            anchorSubject: iacaSubject,
          },
          claims: disclosed,
        },
      ],
    });

    // 5. The same mDL through the Digital Credentials API, in the clear and encrypted: the wallet
    // checks the signed request up to the service's root (dmv's IACA is that root) and its origin.
    const root = new X509Certificate(iaca).raw;
    for (const responseMode of ['dc_api', 'dc_api.jwt'] as const) {
      const created = await api('shop', '/oid4vp/requests', {
        dcqlQuery,
        responseMode,
        expectedOrigins: [origin],
      });
      expect(created.status).toBe(201);
      const resolved = await resolveDcApiRequest(
        created.body.dcApiRequest as DcApiRequest,
        origin,
        [root],
      );
      const { nonce, client_metadata: metadata } = resolved.authorizationRequestPayload;
      const encryptionKey =
        responseMode === 'dc_api.jwt' ? (metadata?.jwks as { keys: JWK[] }).keys[0] : undefined;
      const dcPresentation = await present(
        await dcApiTranscript({ origin, nonce, key: encryptionKey }),
      );
      const data = await dcApiResponseData(resolved, { mdl: [dcPresentation] }, origin);
      if (responseMode === 'dc_api.jwt') expect(Object.keys(data)).toEqual(['response']);
      const answered = await api(
        'shop',
        `/oid4vp/requests/${created.body.id as string}/dc-api-response`,
        { origin, data },
      );
      expect(answered.status).toBe(200);
      expect(answered.body).toMatchObject({ status: 'verified' });
      expect(answered.body.presented).toEqual({
        mdl: [expect.objectContaining({ format: 'mso_mdoc', doctype, claims: disclosed })],
      });
    }

    // 6. bar trusts another IACA only: the same mDL is refused there, the request left pending.
    const elsewhere = await openRedirect('bar');
    const refused = await postMdocAnswer(elsewhere.request, {
      mdl: [await present(await handTranscript(elsewhere.request))],
    });
    expect(refused).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    expect(refused.body.error_description).toMatch(
      /^mdl: the x5chain: .*neither a trust anchor nor issued by one/,
    );
    expect((await api('bar', `/oid4vp/requests/${elsewhere.id}`)).body).toMatchObject({
      status: 'pending',
      refusedAnswers: 1,
    });
  });
});
