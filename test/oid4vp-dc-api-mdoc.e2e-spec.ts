import 'reflect-metadata';
import { KeyObject } from 'node:crypto';
import { setGlobalConfig } from '@openid4vc/oauth2';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import { CertificateAuthorityService } from '../src/certificates/certificate-authority.service.js';
import { type PublicJwk } from '../src/jose/jwk.js';
import { elementValues } from '../src/mdoc/elements.js';
import { issueMdoc } from '../src/mdoc/issue-mdoc.js';
import { expectProblem } from './support/problems.js';
import { dcApiTranscript, presentMdoc } from './support/mdoc-holder.js';
import {
  dcApiResponseData,
  resolveDcApiRequest,
  type DcApiRequest,
} from './support/oid4vp-dc-api-wallet.js';
import { startTestService, type TestService } from './support/test-service.js';
import { makeCertificate, type TestCertificate } from './support/x509-test-pki.js';

type Json = Record<string, unknown>;

const requests = '/ctrl/api/v1.0/oid4vp/requests';
const origin = 'https://dmv.example';
const mdl = 'org.iso.18013.5.1.mDL';
const iso = 'org.iso.18013.5.1';
const day = 86_400_000;
const asked: [string, string][] = [
  [iso, 'family_name'],
  [iso, 'birth_date'],
];

/**
 * An mdoc over the Digital Credentials API (OpenID4VP 1.0 appendix A, B.2.6.2): issued by `issueMdoc`
 * under the test's IACA, a trust anchor of the verifier tenant; the request parsed by OWF's wallet
 * library with the browser's origin; the DeviceResponse made by @auth0/mdl (the independent library)
 * over a session transcript written by hand; the browser's `data` (the JWE to the request's key)
 * handed over at `dc-api-response`.
 */
describe('OpenID4VP over the Digital Credentials API: ISO mdoc', () => {
  let service: TestService;
  let root: Buffer;
  let signer: TestCertificate;

  beforeAll(async () => {
    setGlobalConfig({ allowInsecureUrls: true });
    service = await startTestService();
    await service.client().createTenant({ id: 'dmv', label: 'dmv' });
    const iaca = await makeCertificate('Test IACA', { ca: true, pathLength: 0 });
    signer = await makeCertificate('Test DS', { issuer: iaca });
    await service.client().createTrustAnchor('dmv', { certificate: iaca.pem });
    root = (await service.app.get(CertificateAuthorityService).current())!.root!;
  });
  afterAll(async () => {
    setGlobalConfig({ allowInsecureUrls: false });
    await service.close();
  });

  async function holder() {
    const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
    const device = {
      privateJwk: await exportJWK(privateKey),
      publicJwk: await exportJWK(publicKey),
    };
    const typed = elementValues({
      [iso]: { family_name: 'Mustermann', given_name: 'Erika', birth_date: '1963-08-12' },
    });
    if (!('values' in typed)) throw new Error('element values refused');
    const credential = await issueMdoc(
      {
        doctype: mdl,
        namespaces: typed.values,
        deviceKey: device.publicJwk as PublicJwk,
        signed: new Date(Date.now() - 2 * day),
        validFrom: new Date(Date.now() - 2 * day),
        validUntil: new Date(Date.now() + 30 * day),
      },
      { privateKey: KeyObject.from(signer.keys.privateKey), chain: [signer.base64] },
    );
    return { device, credential };
  }

  async function open() {
    const created = await service.request<Json>(requests, {
      method: 'POST',
      headers: { 'x-tenant-id': 'dmv' },
      body: {
        dcqlQuery: {
          credentials: [
            {
              id: 'mdl',
              format: 'mso_mdoc',
              meta: { doctype_value: mdl },
              claims: asked.map((path) => ({ path, intent_to_retain: false })),
            },
          ],
        },
        responseMode: 'dc_api.jwt',
        expectedOrigins: [origin],
      },
    });
    expect(created.status).toBe(201);
    const dcApiRequest = created.body.dcApiRequest as DcApiRequest;
    const resolved = await resolveDcApiRequest(dcApiRequest, origin, [root]);
    const jwks = resolved.authorizationRequestPayload.client_metadata?.jwks as { keys: JWK[] };
    return {
      id: created.body.id as string,
      resolved,
      nonce: resolved.authorizationRequestPayload.nonce,
      key: jwks.keys[0],
    };
  }

  const submit = (id: string, body: unknown) =>
    service.request<Json>(`${requests}/${id}/dc-api-response`, {
      method: 'POST',
      headers: { 'x-tenant-id': 'dmv' },
      body,
    });

  it('verifies an mdoc whose device signature covers the OpenID4VPDCAPIHandover of this origin', async () => {
    const { device, credential } = await holder();
    const opened = await open();
    const transcript = await dcApiTranscript({ origin, nonce: opened.nonce, key: opened.key });
    const presentation = await presentMdoc(credential, mdl, asked, device.privateJwk, transcript);
    const data = await dcApiResponseData(opened.resolved, { mdl: [presentation] }, origin);
    const verified = await submit(opened.id, { origin, data });
    expect(verified.status).toBe(200);
    expect(verified.body).toMatchObject({
      status: 'verified',
      presented: {
        mdl: [
          {
            format: 'mso_mdoc',
            doctype: mdl,
            claims: { [iso]: { family_name: 'Mustermann', birth_date: '1963-08-12' } },
          },
        ],
      },
    });
  });

  it('refuses a device signature over another origin, another nonce or another key, then verifies the true one', async () => {
    const { device, credential } = await holder();
    const opened = await open();
    const other = await open();
    const cheats = [
      { origin: 'https://evil.example', nonce: opened.nonce, key: opened.key },
      { origin, nonce: other.nonce, key: opened.key },
      { origin, nonce: opened.nonce, key: other.key },
    ];
    let count = 0;
    for (const cheat of cheats) {
      const transcript = await dcApiTranscript(cheat);
      const presentation = await presentMdoc(credential, mdl, asked, device.privateJwk, transcript);
      const data = await dcApiResponseData(opened.resolved, { mdl: [presentation] }, origin);
      const refused = await submit(opened.id, { origin, data });
      const problem = expectProblem(
        refused,
        400,
        'PRESENTATION_ANSWER_REFUSED',
        `${requests}/${opened.id}/dc-api-response`,
      );
      expect(problem.detail).toMatch(/device/i);
      count += 1;
      const read = await service.request<Json>(`${requests}/${opened.id}`, {
        headers: { 'x-tenant-id': 'dmv' },
      });
      expect(read.body).toMatchObject({ status: 'pending', refusedAnswers: count });
    }
    const transcript = await dcApiTranscript({ origin, nonce: opened.nonce, key: opened.key });
    const presentation = await presentMdoc(credential, mdl, asked, device.privateJwk, transcript);
    const data = await dcApiResponseData(opened.resolved, { mdl: [presentation] }, origin);
    expect((await submit(opened.id, { origin, data })).body).toMatchObject({ status: 'verified' });
  });
});
