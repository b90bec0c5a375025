import { calculateJwkThumbprint } from 'jose';
import { alumniCredential, issue } from './support/credentials-harness.js';
import { Tag } from 'cbor-x';
import {
  bytesOf,
  editDeviceResponse,
  elementOf,
  fetchMdocRequest,
  handTranscript,
  issuerItems,
  postMdocAnswer,
  presentMdoc,
  type EmbeddedCbor,
  type MdocRequest,
} from './support/mdoc-holder.js';
import {
  deviceKey,
  isoNamespace as iso,
  mdlDoctype as mdl,
  testMdoc,
  type DeviceKey,
  type TestMdocOptions,
} from './support/mdoc-fixtures.js';
import { startTestService, type TestService } from './support/test-service.js';
import { makeCertificate, type TestCertificate } from './support/x509-test-pki.js';

type Json = Record<string, unknown>;

const day = 86_400_000;
const asked: [string, string][] = [
  [iso, 'family_name'],
  [iso, 'birth_date'],
];

/**
 * mdocs over OpenID4VP's redirect flows (appendix B.2): issued by `issueMdoc` under the test's own
 * IACA (@peculiar/x509), which the verifier tenant adds as a trust anchor through the API; presented
 * by @auth0/mdl (the independent library) over a session transcript the test writes by hand from
 * appendix B.2.6.1; answered by direct_post and direct_post.jwt; every cheat refused with its reason.
 */
describe('OpenID4VP: ISO mdoc presentations', () => {
  let service: TestService;
  let iaca: TestCertificate;
  let signer: TestCertificate;

  beforeAll(async () => {
    service = await startTestService();
    for (const id of ['dmv', 'elsewhere', 'bare', 'issuer']) {
      await service.client().createTenant({ id, label: id });
    }
    iaca = await makeCertificate('Test IACA', { ca: true, pathLength: 0 });
    signer = await makeCertificate('Test DS', { issuer: iaca });
    await service.client().createTrustAnchor('dmv', { certificate: iaca.pem });
    const other = await makeCertificate('Another IACA', { ca: true });
    await service.client().createTrustAnchor('elsewhere', { certificate: other.pem });
  });
  afterAll(() => service.close());

  const holder = deviceKey;
  const mdoc = (device: DeviceKey, options: TestMdocOptions & { by?: TestCertificate } = {}) =>
    testMdoc(device, options.by ?? signer, options);

  interface Opened {
    id: string;
    tenantId: string;
    request: MdocRequest;
  }

  async function open(
    tenantId: string,
    responseMode: 'direct_post' | 'direct_post.jwt',
    claims: Json[] = asked.map((path) => ({ path, intent_to_retain: false })),
  ): Promise<Opened> {
    const created = await service.request<Json>('/ctrl/api/v1.0/oid4vp/requests', {
      method: 'POST',
      headers: { 'x-tenant-id': tenantId },
      body: {
        dcqlQuery: {
          credentials: [{ id: 'mdl', format: 'mso_mdoc', meta: { doctype_value: mdl }, claims }],
        },
        responseMode,
      },
    });
    expect(created.status).toBe(201);
    const request = await fetchMdocRequest(created.body.authorizationRequestUri as string);
    return { id: created.body.id as string, tenantId, request };
  }

  /** What the holder presents: the asked elements of `credential`, signed over `transcriptOf`. */
  async function answer(
    opened: Opened,
    device: DeviceKey,
    credential: string,
    options: {
      transcriptOf?: MdocRequest;
      doctype?: string;
      edit?: (response: Map<unknown, unknown>) => void;
    } = {},
  ) {
    const transcript = await handTranscript(options.transcriptOf ?? opened.request);
    let presentation = await presentMdoc(
      credential,
      options.doctype ?? mdl,
      asked,
      device.privateJwk,
      transcript,
    );
    if (options.edit !== undefined) presentation = editDeviceResponse(presentation, options.edit);
    return postMdocAnswer(opened.request, { mdl: [presentation] });
  }

  async function read(opened: Opened): Promise<Json> {
    const response = await service.request<Json>(`/ctrl/api/v1.0/oid4vp/requests/${opened.id}`, {
      headers: { 'x-tenant-id': opened.tenantId },
    });
    expect(response.status).toBe(200);
    return response.body;
  }

  async function expectRefused(
    opened: Opened,
    answered: { status: number; body: Json },
    reason: string | RegExp,
  ) {
    expect(answered).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    expect(answered.body.error_description).toMatch(reason);
    expect(await read(opened)).toMatchObject({ status: 'pending' });
  }

  it.each(['direct_post', 'direct_post.jwt'] as const)(
    'verifies an mdoc answered by %s, the outcome holding the presented elements only',
    async (responseMode) => {
      const device = await holder();
      const opened = await open('dmv', responseMode);
      expect(opened.request.clientId).toMatch(/^x509_hash:/);
      // The request object asks in OpenID4VP 1.0's words (§6, appendix B.2.2).
      expect(opened.request.claims).toMatchObject({
        dcql_query: {
          credentials: [
            {
              id: 'mdl',
              format: 'mso_mdoc',
              meta: { doctype_value: mdl },
              claims: asked.map((path) => ({ path, intent_to_retain: false })),
            },
          ],
        },
        client_metadata: {
          vp_formats_supported: {
            mso_mdoc: { issuerauth_alg_values: [-7], deviceauth_alg_values: [-7] },
          },
        },
      });
      expect(await answer(opened, device, await mdoc(device))).toEqual({ status: 200, body: {} });
      const outcome = await read(opened);
      expect(outcome).toMatchObject({ status: 'verified', refusedAnswers: 0 });
      expect(outcome.presented).toEqual({
        mdl: [
          {
            format: 'mso_mdoc',
            issuer: signer.subject,
            doctype: mdl,
            holderKeyThumbprint: await calculateJwkThumbprint(device.publicJwk, 'sha256'),
            status: 'none',
            certificateChain: { leafSubject: signer.subject, anchorSubject: iaca.subject },
            claims: { [iso]: { family_name: 'Mustermann', birth_date: '1963-08-12' } },
          },
        ],
      });
    },
  );

  it('refuses a changed element value, and the holder’s true answer then verifies', async () => {
    const device = await holder();
    const credential = await mdoc(device);
    const opened = await open('dmv', 'direct_post');
    const changed = await answer(opened, device, credential, {
      edit: (response) => {
        const items = issuerItems(response, iso);
        const index = items.findIndex((item) => elementOf(item) === 'family_name');
        const bytes = bytesOf(items[index]);
        bytes.write('Musterfrau', bytes.indexOf('Mustermann'));
        items[index] = new Tag(bytes, 24);
      },
    });
    await expectRefused(
      opened,
      changed,
      /^mdl: the digest of org\.iso\.18013\.5\.1\/family_name is not the MSO's$/,
    );
    expect((await answer(opened, device, credential)).status).toBe(200);
  });

  it('refuses an element taken from another mdoc of the same holder', async () => {
    const device = await holder();
    const other = await mdoc(device, { family: 'Gabler' });
    const otherItems: EmbeddedCbor[] = [];
    await presentMdoc(other, mdl, asked, device.privateJwk, new Uint8Array([0x80])).then((b64) =>
      editDeviceResponse(b64, (response) => otherItems.push(...issuerItems(response, iso))),
    );
    const opened = await open('dmv', 'direct_post.jwt');
    const swapped = await answer(opened, device, await mdoc(device), {
      edit: (response) => {
        const items = issuerItems(response, iso);
        const index = items.findIndex((item) => elementOf(item) === 'family_name');
        items[index] = otherItems.find(
          (item) => elementOf(item as never) === 'family_name',
        ) as never;
      },
    });
    await expectRefused(
      opened,
      swapped,
      /^mdl: the digest of org\.iso\.18013\.5\.1\/family_name is not the MSO's$/,
    );
  });

  it('refuses a device signature over another request’s transcript: another nonce, another client id', async () => {
    const device = await holder();
    const credential = await mdoc(device);
    const opened = await open('dmv', 'direct_post.jwt');
    const deviceReason =
      /^mdl: the deviceSignature does not verify over this request’s session transcript/;
    const otherNonce = { ...opened.request, nonce: 'another-nonce' };
    await expectRefused(
      opened,
      await answer(opened, device, credential, { transcriptOf: otherNonce }),
      deviceReason,
    );
    const elsewhere = await open('elsewhere', 'direct_post.jwt');
    const otherClient = { ...opened.request, clientId: elsewhere.request.clientId };
    expect(otherClient.clientId).not.toBe(opened.request.clientId);
    await expectRefused(
      opened,
      await answer(opened, device, credential, { transcriptOf: otherClient }),
      deviceReason,
    );
    // The transcript of direct_post (no thumbprint) does not answer a direct_post.jwt request.
    const clear = { ...opened.request, responseMode: 'direct_post' };
    await expectRefused(
      opened,
      await answer(opened, device, credential, { transcriptOf: clear }),
      deviceReason,
    );
    expect(await read(opened)).toMatchObject({ status: 'pending', refusedAnswers: 3 });
  });

  it('refuses an expired MSO', async () => {
    const device = await holder();
    const opened = await open('dmv', 'direct_post');
    const expired = await mdoc(device, { validUntil: new Date(Date.now() - day) });
    await expectRefused(
      opened,
      await answer(opened, device, expired),
      /^mdl: the MSO was valid until /,
    );
  });

  it('refuses a chain under no anchor of the tenant, and any mdoc at a tenant without anchors', async () => {
    const device = await holder();
    const credential = await mdoc(device);
    const elsewhere = await open('elsewhere', 'direct_post');
    await expectRefused(
      elsewhere,
      await answer(elsewhere, device, credential),
      /^mdl: the x5chain: .*neither a trust anchor nor issued by one/,
    );
    const bare = await open('bare', 'direct_post');
    await expectRefused(
      bare,
      await answer(bare, device, credential),
      'mdl: the verifier has no trust anchors: an mdoc is accepted only through an IACA certificate it trusts',
    );
    // A document signer that is its own root is no IACA of the tenant either.
    const selfSigned = await makeCertificate('Self-made DS');
    const opened = await open('dmv', 'direct_post');
    await expectRefused(
      opened,
      await answer(opened, device, await mdoc(device, { by: selfSigned })),
      /^mdl: the x5chain: /,
    );
  });

  it('refuses a doctype other than asked', async () => {
    const device = await holder();
    const pid = 'eu.europa.ec.eudi.pid.1';
    const opened = await open('dmv', 'direct_post');
    const other = await answer(opened, device, await mdoc(device, { doctype: pid }), {
      doctype: pid,
    });
    await expectRefused(opened, other, `mdl: the document is a ${pid}, not the ${mdl} asked for`);
  });

  it('fails a revoked mdoc at the service’s own status list, after a valid one verified', async () => {
    const issued = await issue(service, 'issuer', alumniCredential());
    expect(issued.status).toBe(201);
    const credential = issued.body.verifiableCredential;
    const entry = [credential.credentialStatus]
      .flat()
      .find((each) => (each as Json).statusPurpose === 'revocation') as Json;
    const status = {
      idx: Number(entry.statusListIndex),
      uri: `${entry.statusListCredential as string}/token`,
    };
    const device = await holder();
    const withStatus = await mdoc(device, { status });
    const first = await open('dmv', 'direct_post');
    expect((await answer(first, device, withStatus)).status).toBe(200);
    expect(await read(first)).toMatchObject({ presented: { mdl: [{ status: 'valid' }] } });

    const revoked = await service.request('/ctrl/api/v1.0/credentials/status', {
      method: 'POST',
      headers: { 'x-tenant-id': 'issuer' },
      body: {
        credentialId: credential.id,
        credentialStatus: { type: 'BitstringStatusListEntry', statusPurpose: 'revocation' },
      },
    });
    expect(revoked.status).toBe(204);
    const second = await open('dmv', 'direct_post.jwt');
    const failed = await answer(second, device, withStatus);
    expect(failed).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    // Bound by the device signature over this request: the answer ends the request as failed.
    expect(await read(second)).toMatchObject({
      status: 'failed',
      outcome: {
        code: 'credential_revoked',
        reason: 'mdl: the status list says the credential is revoked (INVALID)',
      },
    });
  });

  it('fails a bound answer that lacks an element the query asks for', async () => {
    const device = await holder();
    const opened = await open('dmv', 'direct_post', [
      { path: [iso, 'family_name'] },
      { path: [iso, 'portrait'] },
    ]);
    expect((await answer(opened, device, await mdoc(device))).status).toBe(400);
    expect(await read(opened)).toMatchObject({
      status: 'failed',
      outcome: {
        code: 'query_not_satisfied',
        reason:
          'A credential for mdl does not disclose the requested claim org.iso.18013.5.1.portrait.',
      },
    });
  });
});
