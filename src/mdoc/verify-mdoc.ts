import {
  cborDecode,
  cborEncode,
  DataItem,
  DeviceResponse,
  type Document,
  type IssuerAuth,
  type MobileSecurityObject,
  Sign1,
} from '@owf/mdoc';
import { type PublicJwk } from '../jose/jwk.js';
import { validateChain } from '../x509/chain.js';
import { ecJwkOf } from './cose-keys.js';
import { jsonOf } from './json-values.js';
import { anchorsOf, mdocContext, verifySign1 } from './mdoc-context.js';

/** Why a DeviceResponse is refused. */
export type MdocRefusalCode =
  | 'malformed'
  | 'issuer_signature'
  | 'certificate_chain'
  | 'not_trusted'
  | 'digest'
  | 'device_signature'
  | 'expired'
  | 'not_yet_valid'
  | 'doctype';

/** A refused DeviceResponse: a code for code, a sentence for people. */
export class MdocRefusal extends Error {
  override name = 'MdocRefusal';

  constructor(
    readonly code: MdocRefusalCode,
    readonly reason: string,
  ) {
    super(reason);
  }
}

/** One verified document of a DeviceResponse. */
export interface VerifiedMdoc {
  doctype: string;
  /** The presented issuer-signed elements only, as JSON (docs/mdoc.md). */
  elements: Record<string, Record<string, unknown>>;
  /** Standard base64 DER, as presented in the x5chain. */
  issuerChain: string[];
  deviceKey: PublicJwk;
  validity: { signed: Date; validFrom: Date; validUntil: Date };
  status?: { idx: number; uri: string };
}

/** What one DeviceResponse may hold: bounds the decode and the checks of one answer. */
export const deviceResponseLimits = {
  /** base64url characters: about 768 KiB of CBOR, room for a portrait. */
  characters: 1024 * 1024,
  documents: 10,
  elementsPerDocument: 500,
} as const;

/**
 * Verifies a DeviceResponse (OpenID4VP 1.0 appendix B.2: base64url of its CBOR) over the session
 * transcript of this request: for each document, its doctype, the issuer's COSE_Sign1 (ES256), its
 * x5chain up to one of `anchors` (IACAs), every presented element's digest, the MSO's validity at
 * `now`, and the device signature over DeviceAuthentication (ISO/IEC 18013-5 §9.1.3). Throws an
 * `MdocRefusal` naming the first problem.
 */
export async function verifyDeviceResponse(input: {
  deviceResponse: string;
  sessionTranscript: Uint8Array;
  expectedDoctype?: string;
  anchors: readonly string[];
  now: Date;
}): Promise<VerifiedMdoc[]> {
  const response = decodeResponse(input.deviceResponse);
  const documents = response.documents ?? [];
  if (documents.length === 0) throw refuse('malformed', 'the DeviceResponse holds no document');
  if (documents.length > deviceResponseLimits.documents) {
    throw refuse(
      'malformed',
      `the DeviceResponse holds more than ${deviceResponseLimits.documents} documents`,
    );
  }
  let transcript: unknown;
  try {
    transcript = cborDecode(input.sessionTranscript);
  } catch {
    throw new Error('the session transcript is not CBOR');
  }
  const anchors = anchorsOf(input.anchors);
  const verified: VerifiedMdoc[] = [];
  for (const document of documents) {
    try {
      verified.push(await verifyDocument(document, { ...input, transcript, anchors }));
    } catch (error) {
      if (error instanceof MdocRefusal) throw error;
      // The library throws on structures it cannot read (keys of another curve, odd encodings).
      throw refuse('malformed', 'the document cannot be read as an ISO/IEC 18013-5 mdoc');
    }
  }
  return verified;
}

function decodeResponse(encoded: string): DeviceResponse {
  if (typeof encoded !== 'string' || encoded.length > deviceResponseLimits.characters) {
    throw refuse(
      'malformed',
      `the DeviceResponse is not a string of at most ${deviceResponseLimits.characters} characters`,
    );
  }
  if (!/^[A-Za-z0-9_-]+$/.test(encoded))
    throw refuse('malformed', 'the DeviceResponse is not base64url');
  let response: DeviceResponse;
  try {
    response = DeviceResponse.fromEncodedForOid4Vp(encoded);
  } catch {
    throw refuse(
      'malformed',
      'the DeviceResponse is not a CBOR DeviceResponse (ISO/IEC 18013-5 §8.3.2.1.2.2)',
    );
  }
  if (response.status !== 0)
    throw refuse('malformed', `the DeviceResponse has status ${response.status}, not 0 (OK)`);
  return response;
}

type Context = {
  expectedDoctype?: string;
  transcript: unknown;
  anchors: ReturnType<typeof anchorsOf>;
  now: Date;
};

async function verifyDocument(document: Document, context: Context): Promise<VerifiedMdoc> {
  const doctype = document.docType;
  if (context.expectedDoctype !== undefined && doctype !== context.expectedDoctype) {
    throw refuse(
      'doctype',
      `the document is a ${doctype}, not the ${context.expectedDoctype} asked for`,
    );
  }
  const issuerAuth = document.issuerSigned.issuerAuth;
  const mso = msoOf(issuerAuth);
  if (mso.docType !== doctype) {
    throw refuse('doctype', `the document says ${doctype} but its MSO is for ${mso.docType}`);
  }
  const issuerChain = chainOf(issuerAuth, context);
  if (!(await issuerAuth.verifySignature({}, mdocContext()))) {
    throw refuse(
      'issuer_signature',
      "the issuer's COSE_Sign1 does not verify as ES256 with the document signer certificate's key",
    );
  }
  const elements = await presentedElements(document);
  const validity = validityOf(mso, context.now);
  const deviceKey = ecJwkOf(mso.deviceKeyInfo.deviceKey);
  if (deviceKey === undefined)
    throw refuse('device_signature', "the MSO's device key is not an EC2 P-256 key");
  verifyDeviceSignature(document, context.transcript);
  const status = statusOf(mso);
  return {
    doctype,
    elements,
    issuerChain,
    deviceKey,
    validity,
    ...(status === undefined ? {} : { status }),
  };
}

function msoOf(issuerAuth: IssuerAuth): MobileSecurityObject {
  try {
    return issuerAuth.mobileSecurityObject;
  } catch {
    throw refuse('malformed', "the issuer's payload is not a MobileSecurityObject");
  }
}

/** The x5chain validated up to an anchor (the X.509 toolbox's chain check). */
function chainOf(issuerAuth: IssuerAuth, context: Context): string[] {
  const x5chain = issuerAuth.x5chain;
  if (x5chain === undefined)
    throw refuse('certificate_chain', "the issuer's COSE_Sign1 has no x5chain");
  const chain = x5chain.map((der) => Buffer.from(der).toString('base64'));
  const result = validateChain(chain, context.anchors, context.now);
  if (!result.ok) {
    throw refuse(
      result.reason === 'untrusted' ? 'not_trusted' : 'certificate_chain',
      `the x5chain: ${result.text}`,
    );
  }
  return chain;
}

/** Every presented issuer-signed element, its digest checked against the MSO's. */
async function presentedElements(
  document: Document,
): Promise<Record<string, Record<string, unknown>>> {
  const context = mdocContext();
  const namespaces = document.issuerSigned.issuerNamespaces?.issuerNamespaces ?? new Map();
  const count = [...namespaces.values()].reduce((sum, items) => sum + items.length, 0);
  if (count > deviceResponseLimits.elementsPerDocument) {
    throw refuse(
      'malformed',
      `a document presents more than ${deviceResponseLimits.elementsPerDocument} elements`,
    );
  }
  const elements: [string, Record<string, unknown>][] = [];
  for (const [namespace, items] of namespaces) {
    const values: [string, unknown][] = [];
    const seen = new Set<string>();
    for (const item of items) {
      const element = item.elementIdentifier;
      if (seen.has(element))
        throw refuse('malformed', `${namespace}/${element} is presented twice`);
      seen.add(element);
      if (!(await item.isValid(namespace, document.issuerSigned.issuerAuth, context))) {
        throw refuse('digest', `the digest of ${namespace}/${element} is not the MSO's`);
      }
      values.push([element, jsonOf(item.elementValue)]);
    }
    elements.push([namespace, Object.fromEntries(values)]);
  }
  return Object.fromEntries(elements);
}

function validityOf(mso: MobileSecurityObject, now: Date): VerifiedMdoc['validity'] {
  const { signed, validFrom, validUntil } = mso.validityInfo;
  if (now < validFrom)
    throw refuse('not_yet_valid', `the MSO is valid from ${validFrom.toISOString()}`);
  if (now > validUntil)
    throw refuse('expired', `the MSO was valid until ${validUntil.toISOString()}`);
  return { signed, validFrom, validUntil };
}

/**
 * The deviceSignature over DeviceAuthenticationBytes: tag 24 of `["DeviceAuthentication",
 * SessionTranscript, docType, DeviceNameSpacesBytes]` (ISO/IEC 18013-5 §9.1.3.4), with the MSO's key.
 */
function verifyDeviceSignature(document: Document, transcript: unknown): void {
  const { deviceAuth, deviceNamespaces } = document.deviceSigned;
  if (deviceAuth.deviceMac !== undefined) {
    throw refuse(
      'device_signature',
      'the document is authenticated with a deviceMac, which needs a reader key; OpenID4VP answers carry a deviceSignature',
    );
  }
  const signature = deviceAuth.deviceSignature;
  if (signature === undefined)
    throw refuse('device_signature', 'the document has no deviceSignature');
  const deviceAuthentication = cborEncode(
    DataItem.fromData([
      'DeviceAuthentication',
      transcript,
      document.docType,
      DataItem.fromData(deviceNamespaces.encodedStructure),
    ]),
  );
  const detached = Sign1.fromDecodedStructure({
    protected: signature.protectedHeaders,
    unprotected: signature.unprotectedHeaders,
    payload: null,
    signature: signature.signature,
  });
  detached.detachedPayload = deviceAuthentication;
  const deviceKey = document.issuerSigned.issuerAuth.mobileSecurityObject.deviceKeyInfo.deviceKey;
  if (!verifySign1(detached, deviceKey)) {
    throw refuse(
      'device_signature',
      'the deviceSignature does not verify over this request’s session transcript with the MSO’s device key',
    );
  }
}

/** The MSO's Token Status List reference, when it has one. */
function statusOf(mso: MobileSecurityObject): VerifiedMdoc['status'] {
  const fields = mso.decodedStructure as unknown as { get(key: string): unknown };
  const status = fields.get('status');
  if (status === undefined) return undefined;
  const list: unknown = status instanceof Map ? status.get('status_list') : undefined;
  const idx: unknown = list instanceof Map ? list.get('idx') : undefined;
  const uri: unknown = list instanceof Map ? list.get('uri') : undefined;
  if (!Number.isSafeInteger(idx) || (idx as number) < 0 || typeof uri !== 'string') {
    throw refuse('malformed', "the MSO's status is not a status_list with idx and uri");
  }
  return { idx: idx as number, uri };
}

const refuse = (code: MdocRefusalCode, reason: string) => new MdocRefusal(code, reason);
