import { DeviceResponse, parse, Verifier } from '@auth0/mdl';
import { encode, Tag } from 'cbor-x';
import { createHash, generateKeyPairSync } from 'node:crypto';
import { elementValues } from '../src/mdoc/elements.js';
import { issueMdoc } from '../src/mdoc/issue-mdoc.js';
import { MdocRefusal, verifyDeviceResponse } from '../src/mdoc/verify-mdoc.js';
import { makeDevelopmentAuthority } from '../src/x509/authority.js';
import { pemOf } from '../src/x509/certificate.js';
import { issueDocumentSigner } from '../src/x509/document-signer.js';

/**
 * Our mdocs against an independent library: @auth0/mdl, as the holder, reads an mdoc `issueMdoc` made,
 * checks its issuer signature and chain up to the test's own IACA, and presents chosen elements over an
 * OpenID4VP transcript that `verifyDeviceResponse` accepts. The transcript bytes are written here from
 * OpenID4VP 1.0 appendix B.2.6.1 with cbor-x, not by the toolbox.
 */
const day = 86_400_000;
const mdl = 'org.iso.18013.5.1.mDL';
const ns = 'org.iso.18013.5.1';
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest();

/** A text string's CBOR (major type 3), written by cbor-x. */
const tstr = (text: string) => Buffer.from(encode(text));

/** SessionTranscript = [null, null, ["OpenID4VPHandover", sha256(cbor([clientId, nonce, null, responseUri]))]]. */
function handoverTranscript(clientId: string, nonce: string, responseUri: string): Buffer {
  const info = Buffer.from(encode([clientId, nonce, null, responseUri]));
  return Buffer.from(encode([null, null, ['OpenID4VPHandover', sha256(info)]]));
}

/** A DeviceResponse-shaped mdoc @auth0/mdl's parser reads, around the IssuerSigned's own CBOR bytes. */
function mdocAround(doctype: string, issuerSigned: Buffer): Buffer {
  return Buffer.concat([
    Buffer.from([0xa3]), // map(3)
    tstr('version'),
    tstr('1.0'),
    tstr('documents'),
    Buffer.from([0x81, 0xa2]), // array(1), map(2)
    tstr('docType'),
    tstr(doctype),
    tstr('issuerSigned'),
    issuerSigned,
    tstr('status'),
    Buffer.from([0x00]),
  ]);
}

async function iacaWithSigner() {
  const now = Date.now();
  const iaca = await makeDevelopmentAuthority(
    'Interop IACA',
    new Date(now - day),
    new Date(now + 365 * day),
    { country: 'DE', issuerUri: 'https://issuer.example' },
  );
  const signer = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const { x, y } = signer.publicKey.export({ format: 'jwk' });
  const ds = await issueDocumentSigner(iaca, {
    commonName: 'Interop DS',
    country: 'DE',
    publicJwk: { kty: 'EC', crv: 'P-256', x: x!, y: y! },
    issuerUri: 'https://issuer.example',
    crlUri: 'https://issuer.example/crl',
    notBefore: new Date(now - day),
    notAfter: new Date(now + 90 * day),
  });
  return {
    iacaPem: pemOf([iaca.chain[0]]),
    anchor: iaca.chain[0].toString('base64'),
    signer: { privateKey: signer.privateKey, chain: [ds.toString('base64')] },
  };
}

describe('mdoc interoperability with @auth0/mdl', () => {
  it('issues an mdoc @auth0/mdl verifies, and accepts its presentation over the OpenID4VP handover', async () => {
    const { iacaPem, anchor, signer } = await iacaWithSigner();
    const other = await iacaWithSigner();
    const device = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const devicePublic = device.publicKey.export({ format: 'jwk' });
    const values = elementValues({
      [ns]: {
        family_name: 'Mustermann',
        given_name: 'Erika',
        birth_date: '1963-08-12',
        issuing_country: 'DE',
        age_over_18: true,
      },
    });
    if (!('values' in values)) throw new Error(JSON.stringify(values.errors));
    const now = new Date();
    const credential = await issueMdoc(
      {
        doctype: mdl,
        namespaces: values.values,
        deviceKey: { kty: 'EC', crv: 'P-256', x: devicePublic.x!, y: devicePublic.y! },
        signed: now,
        validFrom: now,
        validUntil: new Date(now.getTime() + 30 * day),
      },
      signer,
    );

    // The holder: @auth0/mdl parses the IssuerSigned and presents two elements.
    const mdoc = parse(mdocAround(mdl, Buffer.from(credential, 'base64url')));
    const transcript = handoverTranscript(
      'x509_san_dns:rp.example',
      'nonce-1',
      'https://rp.example/post',
    );
    // @auth0/mdl takes the transcript as a tag-24 encoded item (SessionTranscriptBytes).
    const transcriptBytes = Buffer.from(encode(new Tag(transcript, 24)));
    const presentationDefinition = {
      id: 'mdl-request',
      input_descriptors: [
        {
          id: mdl,
          format: { mso_mdoc: { alg: ['ES256'] } },
          constraints: {
            limit_disclosure: 'required',
            fields: [
              { path: [`$['${ns}']['family_name']`], intent_to_retain: false },
              { path: [`$['${ns}']['birth_date']`], intent_to_retain: false },
            ],
          },
        },
      ],
    };
    const presented = await DeviceResponse.from(mdoc)
      .usingPresentationDefinition(presentationDefinition)
      .usingSessionTranscriptBytes(transcriptBytes)
      .authenticateWithSignature(device.privateKey.export({ format: 'jwk' }), 'ES256')
      .sign();
    const encoded = Buffer.from(presented.encode());

    // @auth0/mdl's verifier: issuer signature, chain to the IACA, digests, device signature.
    const checks: { status: string; check: string; reason?: string }[] = [];
    await new Verifier([iacaPem]).verify(encoded, {
      encodedSessionTranscript: transcriptBytes,
      onCheck: (check) => checks.push(check),
    });
    expect(checks.filter((check) => check.status === 'FAILED')).toEqual([]);
    expect(checks.map((check) => check.check)).toEqual(
      expect.arrayContaining([
        'Issuer certificate must be valid',
        'Issuer signature must be valid',
        'Device signature must be valid',
      ]),
    );
    // Under another IACA the chain fails for @auth0/mdl too.
    const foreign: { status: string; check: string }[] = [];
    await new Verifier([other.iacaPem]).verify(encoded, {
      encodedSessionTranscript: transcriptBytes,
      onCheck: (check) => foreign.push(check),
    });
    expect(foreign).toContainEqual(
      expect.objectContaining({ status: 'FAILED', check: 'Issuer certificate must be valid' }),
    );

    // Our verifier accepts @auth0/mdl's DeviceResponse with the hand-written transcript.
    const deviceResponse = encoded.toString('base64url');
    const [verified] = await verifyDeviceResponse({
      deviceResponse,
      sessionTranscript: transcript,
      expectedDoctype: mdl,
      anchors: [anchor],
      now,
    });
    expect(verified.elements).toEqual({
      [ns]: { family_name: 'Mustermann', birth_date: '1963-08-12' },
    });
    expect(verified.deviceKey).toMatchObject({ x: devicePublic.x, y: devicePublic.y });

    // The test's IACA is what makes it trusted: without it as an anchor, not_trusted.
    await expect(
      verifyDeviceResponse({
        deviceResponse,
        sessionTranscript: transcript,
        anchors: [other.anchor],
        now,
      }),
    ).rejects.toMatchObject({ code: 'not_trusted' });
    // Another nonce's transcript: the device signature is not over it.
    const otherNonce = handoverTranscript(
      'x509_san_dns:rp.example',
      'nonce-2',
      'https://rp.example/post',
    );
    const refused = await verifyDeviceResponse({
      deviceResponse,
      sessionTranscript: otherNonce,
      anchors: [anchor],
      now,
    }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(MdocRefusal);
    expect((refused as MdocRefusal).code).toBe('device_signature');
  });
});
