import { generateKeyPairSync } from 'node:crypto';
import { elementValues } from '../src/mdoc/elements.js';
import { issueMdoc } from '../src/mdoc/issue-mdoc.js';
import { MdocRefusal, verifyDeviceResponse } from '../src/mdoc/verify-mdoc.js';
import { makeDevelopmentAuthority } from '../src/x509/authority.js';
import { pemOf } from '../src/x509/certificate.js';
import { issueDocumentSigner } from '../src/x509/document-signer.js';
import { auth0Checks, handoverTranscript, presentWithAuth0 } from './support/mdoc-holder.js';

/**
 * Our mdocs against an independent library: @auth0/mdl, as the holder, reads an mdoc `issueMdoc` made,
 * checks its issuer signature and chain up to the test's own IACA, and presents chosen elements over an
 * OpenID4VP transcript that `verifyDeviceResponse` accepts. The transcript bytes are written by hand
 * from OpenID4VP 1.0 appendix B.2.6.1 (test/support/mdoc-holder.ts), not by the toolbox.
 */
const day = 86_400_000;
const mdl = 'org.iso.18013.5.1.mDL';
const ns = 'org.iso.18013.5.1';

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

    const transcript = handoverTranscript(
      'x509_san_dns:rp.example',
      'nonce-1',
      'https://rp.example/post',
    );
    const encoded = await presentWithAuth0({
      credential,
      doctype: mdl,
      namespace: ns,
      elements: ['family_name', 'birth_date'],
      devicePrivateJwk: device.privateKey.export({ format: 'jwk' }),
      transcript,
    });

    // @auth0/mdl's verifier: issuer signature, chain to the IACA, digests, device signature.
    const checks = await auth0Checks(encoded, transcript, [iacaPem]);
    expect(checks.filter((check) => check.status === 'FAILED')).toEqual([]);
    expect(checks.map((check) => check.check)).toEqual(
      expect.arrayContaining([
        'Issuer certificate must be valid',
        'Issuer signature must be valid',
        'Device signature must be valid',
      ]),
    );
    // Under another IACA the chain fails for @auth0/mdl too.
    expect(await auth0Checks(encoded, transcript, [other.iacaPem])).toContainEqual(
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
