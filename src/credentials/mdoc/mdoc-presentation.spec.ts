import { oid4vpSessionTranscript } from '../../mdoc/session-transcript.js';
import { type Certificate, parseCertificate } from '../../x509/chain.js';
import { editDeviceResponse, presentMdoc } from '../../../test/support/mdoc-holder.js';
import {
  deviceKey,
  isoNamespace as iso,
  mdlDoctype as mdl,
  testMdoc,
  type DeviceKey,
} from '../../../test/support/mdoc-fixtures.js';
import { makeCertificate, type TestCertificate } from '../../../test/support/x509-test-pki.js';
import { type RemoteTokenStatusLists } from '../sd-jwt/remote-token-status-lists.js';
import { type PresentationExpectation } from '../wallet-presentation.types.js';
import { MdocPresentationVerifier } from './mdoc-presentation.js';

describe('MdocPresentationVerifier', () => {
  let iaca: TestCertificate;
  let signer: TestCertificate;
  let anchors: Certificate[];
  let device: DeviceKey;
  const transcript = () =>
    oid4vpSessionTranscript({
      clientId: 'x509_hash:abc',
      nonce: 'n-1',
      jwkThumbprint: null,
      responseUri: 'https://agent.example/response',
    });
  /** What the status list says of each reference's idx, or why it cannot be read. */
  const statuses = new Map<number, number | string>();
  const verifier = new MdocPresentationVerifier(
    {
      statusOf: (reference: { idx: number }, issuer: unknown) => {
        if (issuer !== undefined) throw new Error('an mdoc names no issuer');
        return Promise.resolve(statuses.get(reference.idx) ?? 0);
      },
    } as unknown as RemoteTokenStatusLists,
    () => Date.now(),
  );

  beforeAll(async () => {
    iaca = await makeCertificate('Unit IACA', { ca: true });
    signer = await makeCertificate('Unit DS', { issuer: iaca });
    anchors = [parseCertificate(iaca.base64) as Certificate];
    device = await deviceKey();
  });

  async function presentation(status?: { idx: number; uri: string }, over?: Uint8Array) {
    const credential = await testMdoc(device, signer, status === undefined ? {} : { status });
    return presentMdoc(
      credential,
      mdl,
      [[iso, 'family_name']],
      device.privateJwk,
      over ?? (await transcript()),
    );
  }

  async function check(
    presented: unknown,
    trusted: Certificate[] | null = anchors,
    doctype: string | undefined = mdl,
  ) {
    const expectation: PresentationExpectation = {
      tenantId: 'dmv',
      format: 'mso_mdoc',
      presentation: presented,
      sessionTranscript: await transcript(),
      doctype,
      nonce: 'n-1',
      clientId: 'x509_hash:abc',
      signal: AbortSignal.timeout(5_000),
    };
    // null: the tenant has no anchors (the reader answers undefined).
    return verifier.verify(expectation, () => Promise.resolve(trusted ?? undefined));
  }

  it('verifies one document: the presented elements only, the chain to the anchor, the device key', async () => {
    const checked = await check(await presentation());
    expect(checked).toEqual({
      verified: true,
      presentation: {
        format: 'mso_mdoc',
        issuer: signer.subject,
        doctype: mdl,
        claims: { [iso]: { family_name: 'Mustermann' } },
        holderKeyThumbprint: expect.any(String) as unknown,
        holderBinding: true,
        status: 'none',
        x5c: {
          leafSubject: signer.subject,
          anchorSubject: iaca.subject,
          keyIdentifiers: expect.arrayContaining([signer.keyId, iaca.keyId]) as unknown,
        },
      },
    });
  });

  it('accepts no mdoc without trust anchors', async () => {
    for (const none of [null, []]) {
      expect(await check(await presentation(), none)).toEqual({
        verified: false,
        code: 'issuer_not_trusted',
        reason:
          'the verifier has no trust anchors: an mdoc is accepted only through an IACA certificate it trusts',
      });
    }
  });

  it('answers the toolbox’s refusals with the verifier’s codes, unbound', async () => {
    expect(await check(await presentation(), anchors, 'eu.europa.ec.eudi.pid.1')).toMatchObject({
      verified: false,
      code: 'doctype_mismatch',
    });
    const other = await presentation(undefined, new Uint8Array([0x83, 0xf6, 0xf6, 0xf6]));
    const refused = await check(other);
    expect(refused).toMatchObject({ verified: false, code: 'device_signature_invalid' });
    expect(refused).not.toHaveProperty('bound');
    const stranger = await makeCertificate('Stranger IACA', { ca: true });
    expect(
      await check(await presentation(), [parseCertificate(stranger.base64) as Certificate]),
    ).toMatchObject({ verified: false, code: 'issuer_not_trusted' });
  });

  it('refuses what is not one base64url DeviceResponse of one document', async () => {
    for (const presented of [42, 'not base64url!', 'A'.repeat(2 * 1024 * 1024), 'AAAA']) {
      expect(await check(presented)).toMatchObject({
        verified: false,
        code: 'presentation_malformed',
      });
    }
    const two = editDeviceResponse(await presentation(), (response) => {
      const documents = response.get('documents') as unknown[];
      response.set('documents', [documents[0], documents[0]]);
    });
    expect(await check(two)).toEqual({
      verified: false,
      code: 'presentation_malformed',
      reason: 'the DeviceResponse holds 2 documents: a presentation is one mdoc',
    });
  });

  it('fails a revoked or unreadable status once the device signed, as bound', async () => {
    statuses.set(7, 1).set(8, 'the status list https://lists.example/1 answered HTTP 500');
    const uri = 'https://lists.example/1';
    expect(await check(await presentation({ idx: 7, uri }))).toEqual({
      verified: false,
      code: 'credential_revoked',
      reason: 'the status list says the credential is revoked (INVALID)',
      bound: true,
    });
    expect(await check(await presentation({ idx: 8, uri }))).toMatchObject({
      code: 'status_unavailable',
      bound: true,
    });
    expect(await check(await presentation({ idx: 9, uri }))).toMatchObject({
      verified: true,
      presentation: { status: 'valid' },
    });
  });
});
