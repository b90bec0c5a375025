import { DeviceResponse, parse, Verifier } from '@auth0/mdl';
import { encode, Tag } from 'cbor-x';
import { createHash, type JsonWebKey } from 'node:crypto';

/**
 * A holder on @auth0/mdl, the mdoc library the project does not use, with the OpenID4VP transcript
 * written by hand from OpenID4VP 1.0 appendix B.2.6.1 with cbor-x (not by src/mdoc/).
 */
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest();

/** A text string's CBOR (major type 3), written by cbor-x. */
const tstr = (text: string) => Buffer.from(encode(text));

/** SessionTranscript = [null, null, ["OpenID4VPHandover", sha256(cbor([clientId, nonce, null, responseUri]))]]. */
export function handoverTranscript(clientId: string, nonce: string, responseUri: string): Buffer {
  const info = Buffer.from(encode([clientId, nonce, null, responseUri]));
  return Buffer.from(encode([null, null, ['OpenID4VPHandover', sha256(info)]]));
}

/** SessionTranscriptBytes: the transcript as a tag-24 encoded item, what @auth0/mdl takes. */
export const transcriptBytesOf = (transcript: Buffer) =>
  Buffer.from(encode(new Tag(transcript, 24)));

/** A DeviceResponse-shaped mdoc @auth0/mdl's parser reads, around the IssuerSigned's own CBOR bytes. */
export function mdocAround(doctype: string, issuerSigned: Buffer): Buffer {
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

/** The holder presents `elements` of a credential (base64url IssuerSigned) over the transcript. */
export async function presentWithAuth0(p: {
  credential: string;
  doctype: string;
  namespace: string;
  elements: string[];
  devicePrivateJwk: JsonWebKey;
  transcript: Buffer;
}): Promise<Buffer> {
  const mdoc = parse(mdocAround(p.doctype, Buffer.from(p.credential, 'base64url')));
  const presentationDefinition = {
    id: 'mdoc-request',
    input_descriptors: [
      {
        id: p.doctype,
        format: { mso_mdoc: { alg: ['ES256'] } },
        constraints: {
          limit_disclosure: 'required',
          fields: p.elements.map((element) => ({
            path: [`$['${p.namespace}']['${element}']`],
            intent_to_retain: false,
          })),
        },
      },
    ],
  };
  const presented = await DeviceResponse.from(mdoc)
    .usingPresentationDefinition(presentationDefinition)
    .usingSessionTranscriptBytes(transcriptBytesOf(p.transcript))
    .authenticateWithSignature(p.devicePrivateJwk, 'ES256')
    .sign();
  return Buffer.from(presented.encode());
}

/** @auth0/mdl's verifier's checks of a DeviceResponse under `rootsPem` (the IACAs it trusts). */
export async function auth0Checks(
  deviceResponse: Buffer,
  transcript: Buffer,
  rootsPem: string[],
): Promise<{ status: string; check: string; reason?: string }[]> {
  const checks: { status: string; check: string; reason?: string }[] = [];
  await new Verifier(rootsPem).verify(deviceResponse, {
    encodedSessionTranscript: transcriptBytesOf(transcript),
    onCheck: (check) => checks.push(check),
  });
  return checks;
}
