import {
  DeviceAuth,
  DeviceAuthentication,
  DeviceMac,
  DeviceNamespaces,
  DeviceResponse,
  DeviceSignature,
  DeviceSigned,
  Document,
  IssuerAuth,
  IssuerNamespaces,
  IssuerSigned,
  IssuerSignedItem,
  ProtectedHeaders,
  UnprotectedHeaders,
  cborEncode,
} from '@owf/mdoc';
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { makeDevelopmentAuthority, type AuthorityMaterial } from '../x509/authority.js';
import { issueDocumentSigner } from '../x509/document-signer.js';
import { coseKeyOf, ecJwkOfKeyObject } from './cose-keys.js';
import { elementValues } from './elements.js';
import { issueMdoc, type MdocContent } from './issue-mdoc.js';
import { mdocContext } from './mdoc-context.js';
import { oid4vpSessionTranscript } from './session-transcript.js';
import { MdocRefusal, verifyDeviceResponse, type MdocRefusalCode } from './verify-mdoc.js';

const day = 86_400_000;
const now = new Date('2026-06-01T12:00:00Z');
const mdl = 'org.iso.18013.5.1.mDL';
const ns = 'org.iso.18013.5.1';

const p256 = () => generateKeyPairSync('ec', { namedCurve: 'P-256' });

/** An IACA, a document signer under it and an mdoc for a fresh device key. */
async function world(dsValidity = { from: now.getTime() - day, to: now.getTime() + 365 * day }) {
  const iaca: AuthorityMaterial = await makeDevelopmentAuthority(
    'Test IACA',
    new Date(now.getTime() - 2 * day),
    new Date(now.getTime() + 3650 * day),
    { country: 'DE', issuerUri: 'https://agent.example.com' },
  );
  const signerKeys = p256();
  const ds = await issueDocumentSigner(iaca, {
    commonName: 'Test DS',
    country: 'DE',
    publicJwk: ecJwkOfKeyObject(signerKeys.publicKey),
    issuerUri: 'https://agent.example.com',
    crlUri: 'https://agent.example.com/crl',
    notBefore: new Date(dsValidity.from),
    notAfter: new Date(dsValidity.to),
  });
  const device = p256();
  const values = elementValues({
    [ns]: { family_name: 'Mustermann', birth_date: '1963-08-12', age_over_18: true },
  });
  if (!('values' in values)) throw new Error('values refused');
  const content: MdocContent = {
    doctype: mdl,
    namespaces: values.values,
    deviceKey: ecJwkOfKeyObject(device.publicKey),
    signed: now,
    validFrom: now,
    validUntil: new Date(now.getTime() + 30 * day),
    status: { idx: 7, uri: 'https://agent.example.com/status/1' },
  };
  const signer = { privateKey: signerKeys.privateKey, chain: [ds.toString('base64')] };
  const credential = await issueMdoc(content, signer);
  const anchor = iaca.chain[0].toString('base64');
  return { credential, device: device.privateKey, anchor, content, signer };
}

const transcript = (nonce = 'n-1') =>
  oid4vpSessionTranscript({
    clientId: 'x509_san_dns:verifier.example.com',
    nonce,
    jwkThumbprint: null,
    responseUri: 'https://verifier.example.com/response',
  });

/** A holder on @owf/mdoc's structures: one document, signed by `deviceKey` over `sessionTranscript`. */
async function present(
  issuerSigned: IssuerSigned,
  deviceKey: KeyObject,
  sessionTranscript: Uint8Array,
  deviceAuth?: DeviceAuth,
): Promise<string> {
  const docType = issuerSigned.issuerAuth.mobileSecurityObject.docType;
  const deviceNamespaces = DeviceNamespaces.create({ deviceNamespaces: new Map() });
  const bytes = DeviceAuthentication.create({
    sessionTranscript,
    docType,
    deviceNamespaces,
  }).encode({
    asDataItem: true,
  });
  const deviceSignature = await DeviceSignature.create(
    {
      protectedHeaders: ProtectedHeaders.create({ protectedHeaders: new Map([[1, -7]]) }),
      unprotectedHeaders: UnprotectedHeaders.create({ unprotectedHeaders: new Map() }),
      detachedPayload: bytes,
      signingKey: coseKeyOf(ecJwkOfKeyObject(deviceKey)),
    },
    mdocContext(deviceKey),
  );
  const document = Document.create({
    docType,
    issuerSigned,
    deviceSigned: DeviceSigned.create({
      deviceNamespaces,
      deviceAuth: deviceAuth ?? DeviceAuth.create({ deviceSignature }),
    }),
  });
  return DeviceResponse.createSimple({ documents: [document] }).encodedForOid4Vp;
}

const decode = (credential: string) => IssuerSigned.fromEncodedForOid4Vci(credential);

/** The same IssuerSigned with its items of `ns` replaced. */
function withItems(issuerSigned: IssuerSigned, items: IssuerSignedItem[]): IssuerSigned {
  return IssuerSigned.create({
    issuerNamespaces: IssuerNamespaces.create({ issuerNamespaces: new Map([[ns, items]]) }),
    issuerAuth: issuerSigned.issuerAuth,
  });
}

async function refusal(run: Promise<unknown>): Promise<{ code: MdocRefusalCode; reason: string }> {
  try {
    await run;
  } catch (error) {
    if (error instanceof MdocRefusal) return { code: error.code, reason: error.reason };
    throw error;
  }
  throw new Error('accepted');
}

describe('mdoc issue and verify', () => {
  it('verifies an issued mdoc presented over the OpenID4VP transcript, elements as JSON', async () => {
    const { credential, device, anchor, content } = await world();
    const sessionTranscript = await transcript();
    const deviceResponse = await present(decode(credential), device, sessionTranscript);
    const [verified] = await verifyDeviceResponse({
      deviceResponse,
      sessionTranscript,
      expectedDoctype: mdl,
      anchors: [anchor],
      now,
    });
    expect(verified.doctype).toBe(mdl);
    expect(verified.elements).toEqual({
      [ns]: { family_name: 'Mustermann', birth_date: '1963-08-12', age_over_18: true },
    });
    expect(verified.deviceKey).toEqual(content.deviceKey);
    expect(verified.status).toEqual({ idx: 7, uri: 'https://agent.example.com/status/1' });
    expect(verified.validity.validUntil.toISOString()).toBe(content.validUntil.toISOString());
    expect(verified.issuerChain).toHaveLength(1);
  });

  it('presents only the elements the holder keeps, and those verify', async () => {
    const { credential, device, anchor } = await world();
    const issuerSigned = decode(credential);
    const kept = issuerSigned
      .getIssuerNamespace(ns)!
      .filter((i) => i.elementIdentifier === 'age_over_18');
    const sessionTranscript = await transcript();
    const deviceResponse = await present(withItems(issuerSigned, kept), device, sessionTranscript);
    const [verified] = await verifyDeviceResponse({
      deviceResponse,
      sessionTranscript,
      anchors: [anchor],
      now,
    });
    expect(verified.elements).toEqual({ [ns]: { age_over_18: true } });
  });

  it('gives each element a salt of 32 bytes and distinct digest IDs, each issuance its own', async () => {
    const first = decode((await world()).credential).getIssuerNamespace(ns)!;
    const ids = new Set(first.map((item) => item.digestId));
    expect(ids.size).toBe(first.length);
    expect(first.every((item) => item.random.length === 32)).toBe(true);
    const salts = new Set(first.map((item) => Buffer.from(item.random).toString('hex')));
    expect(salts.size).toBe(first.length);
  });

  it('refuses what is not a DeviceResponse (malformed)', async () => {
    const { anchor } = await world();
    const sessionTranscript = await transcript();
    for (const deviceResponse of [
      'not base64url!',
      Buffer.from(cborEncode({ a: 1 })).toString('base64url'),
      'A'.repeat(1024 * 1024 + 1),
    ]) {
      expect(
        (
          await refusal(
            verifyDeviceResponse({ deviceResponse, sessionTranscript, anchors: [anchor], now }),
          )
        ).code,
      ).toBe('malformed');
    }
  });

  it('refuses a changed issuer signature (issuer_signature)', async () => {
    const { credential, device, anchor } = await world();
    const issuerSigned = decode(credential);
    const auth = issuerSigned.issuerAuth;
    const signature = Uint8Array.from(auth.signature);
    signature[5] ^= 1;
    const forged = IssuerAuth.fromDecodedStructure({ ...auth.decodedStructure, signature });
    const tampered = IssuerSigned.create({
      issuerNamespaces: issuerSigned.issuerNamespaces,
      issuerAuth: forged,
    });
    const sessionTranscript = await transcript();
    const deviceResponse = await present(tampered, device, sessionTranscript);
    expect(
      (
        await refusal(
          verifyDeviceResponse({ deviceResponse, sessionTranscript, anchors: [anchor], now }),
        )
      ).code,
    ).toBe('issuer_signature');
  });

  it('refuses a chain under no anchor (not_trusted) and a document signer out of its time (certificate_chain)', async () => {
    const { credential, device } = await world();
    const other = await world();
    const sessionTranscript = await transcript();
    const deviceResponse = await present(decode(credential), device, sessionTranscript);
    const untrusted = await refusal(
      verifyDeviceResponse({ deviceResponse, sessionTranscript, anchors: [other.anchor], now }),
    );
    expect(untrusted.code).toBe('not_trusted');
    const lapsed = await world({ from: now.getTime() - 10 * day, to: now.getTime() - day });
    const lapsedResponse = await present(
      decode(lapsed.credential),
      lapsed.device,
      sessionTranscript,
    );
    const outOfTime = await refusal(
      verifyDeviceResponse({
        deviceResponse: lapsedResponse,
        sessionTranscript,
        anchors: [lapsed.anchor],
        now,
      }),
    );
    expect(outOfTime.code).toBe('certificate_chain');
  });

  it('refuses a changed element value and an element from another mdoc (digest)', async () => {
    const { credential, device, anchor } = await world();
    const issuerSigned = decode(credential);
    const items = issuerSigned.getIssuerNamespace(ns)!;
    const changed = items.map((item) =>
      item.elementIdentifier === 'family_name'
        ? IssuerSignedItem.fromOptions({
            digestId: item.digestId,
            random: item.random,
            elementIdentifier: 'family_name',
            elementValue: 'Musterfrau',
          })
        : item,
    );
    const sessionTranscript = await transcript();
    const changedResponse = await present(
      withItems(issuerSigned, changed),
      device,
      sessionTranscript,
    );
    const refused = await refusal(
      verifyDeviceResponse({
        deviceResponse: changedResponse,
        sessionTranscript,
        anchors: [anchor],
        now,
      }),
    );
    expect(refused).toEqual({
      code: 'digest',
      reason: expect.stringContaining(`${ns}/family_name`),
    });
    const foreign = decode((await world()).credential).getIssuerNamespace(ns)!;
    const mixed = [
      ...items.filter((i) => i.elementIdentifier !== 'birth_date'),
      foreign.find((i) => i.elementIdentifier === 'birth_date')!,
    ];
    const mixedResponse = await present(withItems(issuerSigned, mixed), device, sessionTranscript);
    expect(
      (
        await refusal(
          verifyDeviceResponse({
            deviceResponse: mixedResponse,
            sessionTranscript,
            anchors: [anchor],
            now,
          }),
        )
      ).code,
    ).toBe('digest');
  });

  it('refuses a device signature over another transcript, by another key, or a deviceMac (device_signature)', async () => {
    const { credential, device, anchor } = await world();
    const sessionTranscript = await transcript('n-1');
    const otherNonce = await present(decode(credential), device, await transcript('n-2'));
    expect(
      (
        await refusal(
          verifyDeviceResponse({
            deviceResponse: otherNonce,
            sessionTranscript,
            anchors: [anchor],
            now,
          }),
        )
      ).code,
    ).toBe('device_signature');
    const otherKey = await present(decode(credential), p256().privateKey, sessionTranscript);
    expect(
      (
        await refusal(
          verifyDeviceResponse({
            deviceResponse: otherKey,
            sessionTranscript,
            anchors: [anchor],
            now,
          }),
        )
      ).code,
    ).toBe('device_signature');
    const deviceMac = DeviceMac.fromEncodedStructure([
      ProtectedHeaders.create({ protectedHeaders: new Map([[1, 5]]) }).encodedStructure,
      new Map(),
      null,
      new Uint8Array(32),
    ]);
    const mac = await present(
      decode(credential),
      device,
      sessionTranscript,
      DeviceAuth.create({ deviceMac }),
    );
    const refused = await refusal(
      verifyDeviceResponse({ deviceResponse: mac, sessionTranscript, anchors: [anchor], now }),
    );
    expect(refused).toEqual({
      code: 'device_signature',
      reason: expect.stringContaining('deviceMac'),
    });
  });

  it('refuses an MSO past its time (expired), before it (not_yet_valid), and another doctype (doctype)', async () => {
    const { credential, device, anchor } = await world();
    const sessionTranscript = await transcript();
    const deviceResponse = await present(decode(credential), device, sessionTranscript);
    const at = (offset: number) => new Date(now.getTime() + offset);
    expect(
      (
        await refusal(
          verifyDeviceResponse({
            deviceResponse,
            sessionTranscript,
            anchors: [anchor],
            now: at(31 * day),
          }),
        )
      ).code,
    ).toBe('expired');
    expect(
      (
        await refusal(
          verifyDeviceResponse({
            deviceResponse,
            sessionTranscript,
            anchors: [anchor],
            now: at(-60_000),
          }),
        )
      ).code,
    ).toBe('not_yet_valid');
    const doctype = await refusal(
      verifyDeviceResponse({
        deviceResponse,
        sessionTranscript,
        anchors: [anchor],
        now,
        expectedDoctype: 'eu.europa.ec.eudi.pid.1',
      }),
    );
    expect(doctype.code).toBe('doctype');
  });
});
