import { DeviceResponse, parse, Verifier, type IssuerSignedDocument, type MDoc } from '@auth0/mdl';
import { type JWK } from 'jose';

/** A CBOR head: major type and argument (RFC 8949 §3), for the few items written by hand below. */
function head(major: number, argument: number): Buffer {
  const type = major << 5;
  if (argument < 24) return Buffer.from([type | argument]);
  if (argument < 0x100) return Buffer.from([type | 24, argument]);
  if (argument < 0x10000) return Buffer.from([type | 25, argument >> 8, argument & 0xff]);
  const bytes = Buffer.alloc(5);
  bytes[0] = type | 26;
  bytes.writeUInt32BE(argument, 1);
  return bytes;
}

const text = (value: string) =>
  Buffer.concat([head(3, Buffer.byteLength(value)), Buffer.from(value, 'utf8')]);

/**
 * An OpenID4VCI mdoc (base64url of the CBOR IssuerSigned, OpenID4VCI 1.0 appendix A.2.4) as @auth0/mdl
 * reads one: a DeviceResponse of one document (ISO/IEC 18013-5 §8.3.2.1.2.2), the issued bytes as
 * they came, written around them by hand.
 */
export function mdocOf(issuerSigned: string, doctype: string): MDoc {
  const document = Buffer.concat([
    head(5, 2),
    text('docType'),
    text(doctype),
    text('issuerSigned'),
    Buffer.from(issuerSigned, 'base64url'),
  ]);
  const response = Buffer.concat([
    head(5, 3),
    text('version'),
    text('1.0'),
    text('documents'),
    head(4, 1),
    document,
    text('status'),
    head(0, 0),
  ]);
  return parse(response);
}

/**
 * A SessionTranscript as @auth0/mdl's holder and verifier take it: a tag-24 encoded item of the array
 * `[null, null, handover]` (ISO/IEC 18013-5 §9.1.5.1), here with a handover of our choosing.
 */
export function sessionTranscript(handover: string): Buffer {
  const array = Buffer.concat([head(4, 3), Buffer.from([0xf6, 0xf6]), text(handover)]);
  return Buffer.concat([Buffer.from([0xd8, 0x18]), head(2, array.length), array]);
}

/**
 * What an @auth0/mdl holder presents of the mdoc: the chosen elements of one namespace, device-signed
 * with the holder's private key over the session transcript.
 */
export async function presentMdoc(
  mdoc: MDoc,
  doctype: string,
  elements: { namespace: string; names: string[] },
  holderKey: JWK,
  transcript: Buffer,
): Promise<Uint8Array> {
  const definition = {
    id: 'mdoc-issuing',
    input_descriptors: [
      {
        id: doctype,
        format: { mso_mdoc: { alg: ['ES256'] } },
        constraints: {
          limit_disclosure: 'required',
          fields: elements.names.map((name) => ({
            path: [`$['${elements.namespace}']['${name}']`],
            intent_to_retain: false,
          })),
        },
      },
    ],
  };
  const signed = await DeviceResponse.from(mdoc)
    .usingPresentationDefinition(definition)
    .usingSessionTranscriptBytes(transcript)
    .authenticateWithSignature(holderKey, 'ES256')
    .sign();
  return signed.encode();
}

/** @auth0/mdl's own verifier with one trusted IACA (PEM): the verified document, or a rejection. */
export async function verifyMdoc(
  deviceResponse: Uint8Array,
  iacaPem: string,
  transcript: Buffer,
): Promise<IssuerSignedDocument> {
  const verified = await new Verifier([iacaPem]).verify(deviceResponse, {
    encodedSessionTranscript: transcript,
  });
  return verified.documents[0];
}
