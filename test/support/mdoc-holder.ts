import { createHash, type JsonWebKey } from 'node:crypto';
import { DeviceResponse, parse, Verifier, type IssuerSignedDocument } from '@auth0/mdl';
import { Decoder, encode, Encoder, Tag } from 'cbor-x';
import { calculateJwkThumbprint, CompactEncrypt, decodeJwt, importJWK, type JWK } from 'jose';

type Json = Record<string, unknown>;

/** CBOR as ISO/IEC 18013-5 writes it: maps kept as maps (integer labels stay integers). */
const cbor = new Encoder({ mapsAsObjects: false, useRecords: false });
const decoder = new Decoder({ mapsAsObjects: false, useRecords: false });

/** What a wallet reads from the request object (OpenID4VP 1.0 §5), its signature not checked here. */
export interface MdocRequest {
  clientId: string;
  nonce: string;
  state: string;
  responseUri: string;
  responseMode: string;
  /** direct_post.jwt: the verifier's encryption key from `client_metadata.jwks`. */
  encryptionJwk?: JWK;
  /** The request object's claims as read. */
  claims: Json;
}

/** The request object at the link's `request_uri`, read as a wallet does (RFC 9101 §5.2). */
export async function fetchMdocRequest(authorizationRequestUri: string): Promise<MdocRequest> {
  const requestUri = new URL(authorizationRequestUri).searchParams.get('request_uri')!;
  const response = await fetch(requestUri);
  if (response.status !== 200) throw new Error(`request object: HTTP ${response.status}`);
  const claims = decodeJwt(await response.text());
  const metadata = (claims.client_metadata ?? {}) as { jwks?: { keys: JWK[] } };
  return {
    clientId: claims.client_id as string,
    nonce: claims.nonce as string,
    state: claims.state as string,
    responseUri: claims.response_uri as string,
    responseMode: claims.response_mode as string,
    encryptionJwk: metadata.jwks?.keys[0],
    claims,
  };
}

/**
 * The `SessionTranscript` of a redirect request, written by hand from OpenID4VP 1.0 appendix B.2.6.1:
 * `[null, null, ["OpenID4VPHandover", SHA-256(cbor([client_id, nonce, jwkThumbprint, response_uri]))]]`,
 * the thumbprint (RFC 7638, SHA-256, as bytes) of the encryption key for direct_post.jwt, else null.
 */
export async function handTranscript(request: MdocRequest): Promise<Uint8Array> {
  const thumbprint =
    request.responseMode === 'direct_post.jwt' && request.encryptionJwk !== undefined
      ? Buffer.from(await calculateJwkThumbprint(request.encryptionJwk, 'sha256'), 'base64url')
      : null;
  const info = cbor.encode([request.clientId, request.nonce, thumbprint, request.responseUri]);
  const handover = ['OpenID4VPHandover', createHash('sha256').update(info).digest()];
  return cbor.encode([null, null, handover]);
}

/**
 * The DC API SessionTranscript written by hand from OpenID4VP 1.0 appendix B.2.6.2:
 * `[null, null, ["OpenID4VPDCAPIHandover", SHA-256(cbor([origin, nonce, jwkThumbprint]))]]`, the
 * thumbprint (RFC 7638, SHA-256, bytes) of the request's encryption key for dc_api.jwt, else null.
 */
export async function dcApiTranscript(p: {
  origin: string;
  nonce: string;
  key?: JWK;
}): Promise<Uint8Array> {
  const thumbprint =
    p.key === undefined
      ? null
      : Buffer.from(await calculateJwkThumbprint(p.key, 'sha256'), 'base64url');
  const info = cbor.encode([p.origin, p.nonce, thumbprint]);
  const handover = ['OpenID4VPDCAPIHandover', createHash('sha256').update(info).digest()];
  return cbor.encode([null, null, handover]);
}

/**
 * A DeviceResponse made by @auth0/mdl (the independent library) from an mdoc's `IssuerSigned`
 * (base64url, OpenID4VCI 1.0 appendix A.2): the asked elements, device-signed (ES256) over
 * `transcript` (the CBOR SessionTranscript; the library takes it wrapped as a tag-24 data item).
 */
export async function presentMdoc(
  issuerSigned: string,
  doctype: string,
  elements: [namespace: string, element: string][],
  deviceKey: JWK,
  transcript: Uint8Array,
): Promise<string> {
  const document = mdocAround(doctype, Buffer.from(issuerSigned, 'base64url'));
  const fields = elements.map(([namespace, element]) => ({
    path: [`$['${namespace}']['${element}']`],
    intent_to_retain: false,
  }));
  const response = await DeviceResponse.from(document)
    .usingPresentationDefinition({
      id: 'request',
      input_descriptors: [
        {
          id: doctype,
          format: { mso_mdoc: { alg: ['ES256'] } },
          constraints: { limit_disclosure: 'required', fields },
        },
      ],
    })
    .usingSessionTranscriptBytes(Buffer.from(cbor.encode(new Tag(transcript, 24))))
    .authenticateWithSignature(deviceKey, 'ES256')
    .sign();
  return Buffer.from(response.encode()).toString('base64url');
}

/** A DeviceResponse (base64url) decoded to edit, and encoded back, as a cheating wallet would. */
export function editDeviceResponse(
  deviceResponse: string,
  edit: (response: Map<unknown, unknown>) => void,
): string {
  const decoded = decoder.decode(Buffer.from(deviceResponse, 'base64url')) as Map<unknown, unknown>;
  edit(decoded);
  return Buffer.from(cbor.encode(decoded)).toString('base64url');
}

/**
 * A tag-24 data item as decoded: a cbor-x `Tag`, or the `DataItem` (with its `buffer`) of whichever mdoc
 * library registered tag 24 with cbor-x in this process last.
 */
export type EmbeddedCbor = Tag | { buffer: Uint8Array };

/** The CBOR bytes a tag-24 data item wraps. */
export const bytesOf = (item: EmbeddedCbor): Buffer =>
  Buffer.from(item instanceof Tag ? (item.value as Uint8Array) : item.buffer);

/** The IssuerSigned items of one namespace of the first document (tag-24 data items). */
export function issuerItems(response: Map<unknown, unknown>, namespace: string): EmbeddedCbor[] {
  const [document] = response.get('documents') as Map<unknown, unknown>[];
  const issuerSigned = document.get('issuerSigned') as Map<unknown, unknown>;
  return (issuerSigned.get('nameSpaces') as Map<string, EmbeddedCbor[]>).get(namespace)!;
}

/** The element an item names (ISO/IEC 18013-5 §8.3.2.1.2.2 IssuerSignedItem). */
export function elementOf(item: EmbeddedCbor): string {
  const decoded = decoder.decode(bytesOf(item)) as Map<string, unknown>;
  return decoded.get('elementIdentifier') as string;
}

/** Posts the answer as the request's response mode says: in the clear, or a JWE to its key (jose). */
export async function postMdocAnswer(
  request: MdocRequest,
  vpToken: Record<string, string[]>,
): Promise<{ status: number; body: Json }> {
  let form: Record<string, string>;
  if (request.responseMode === 'direct_post.jwt') {
    const jwk = request.encryptionJwk!;
    const plaintext = new TextEncoder().encode(
      JSON.stringify({ vp_token: vpToken, state: request.state }),
    );
    const response = await new CompactEncrypt(plaintext)
      .setProtectedHeader({ alg: 'ECDH-ES', enc: 'A128GCM', kid: jwk.kid })
      .encrypt(await importJWK(jwk, 'ECDH-ES'));
    form = { response };
  } else {
    form = { vp_token: JSON.stringify(vpToken), state: request.state };
  }
  const answered = await fetch(request.responseUri, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form).toString(),
  });
  return { status: answered.status, body: (await answered.json()) as Json };
}

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

/** The holder presents `elements` of one namespace of a credential (base64url IssuerSigned). */
export async function presentWithAuth0(p: {
  credential: string;
  doctype: string;
  namespace: string;
  elements: string[];
  devicePrivateJwk: JsonWebKey;
  transcript: Buffer;
}): Promise<Buffer> {
  const elements = p.elements.map((element): [string, string] => [p.namespace, element]);
  const presented = await presentMdoc(
    p.credential,
    p.doctype,
    elements,
    p.devicePrivateJwk,
    p.transcript,
  );
  return Buffer.from(presented, 'base64url');
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

/** @auth0/mdl's verifier under `rootsPem`, which throws at the first failed check: the verified document. */
export async function verifiedWithAuth0(
  deviceResponse: Buffer,
  transcript: Buffer,
  rootsPem: string[],
): Promise<IssuerSignedDocument> {
  const verified = await new Verifier(rootsPem).verify(deviceResponse, {
    encodedSessionTranscript: transcriptBytesOf(transcript),
  });
  return verified.documents[0];
}

/** The one document of an issued mdoc (base64url IssuerSigned) as @auth0/mdl reads it. */
export const issuedDocument = (credential: string, doctype: string): IssuerSignedDocument =>
  parse(mdocAround(doctype, Buffer.from(credential, 'base64url'))).documents[0];
