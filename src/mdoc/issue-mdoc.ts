import {
  DeviceKey,
  DeviceKeyInfo,
  Header,
  IssuerAuth,
  IssuerNamespaces,
  IssuerSigned,
  IssuerSignedItem,
  MobileSecurityObject,
  ProtectedHeaders,
  SignatureAlgorithm,
  UnprotectedHeaders,
  ValidityInfo,
  ValueDigests,
} from '@owf/mdoc';
import { createHash, randomBytes, randomInt, X509Certificate, type KeyObject } from 'node:crypto';
import { type PublicJwk } from '../jose/jwk.js';
import { coseKeyOf, ecJwkOfKeyObject } from './cose-keys.js';
import { mdocContext, type SignFunction } from './mdoc-context.js';

/** The key an mdoc is signed with and its document signer chain. */
export interface MdocSigner {
  /** P-256: the document signer certificate's key; or `sign` where the key is held elsewhere. */
  privateKey?: KeyObject;
  /** ES256 with the document signer's key (IEEE P1363, 64 bytes), e.g. a tenant key's `sign`. */
  sign?: SignFunction;
  /** Standard base64 DER, the document signer first, no root. */
  chain: readonly string[];
}

/** What one mdoc says. */
export interface MdocContent {
  doctype: string;
  /** Element values by namespace, as `elementValues` returns them. */
  namespaces: Record<string, Record<string, unknown>>;
  /** The holder's key (a P-256 EC JWK) the MSO binds. */
  deviceKey: PublicJwk;
  signed: Date;
  validFrom: Date;
  validUntil: Date;
  /** The MSO's Token Status List reference (`status.status_list`). */
  status?: { idx: number; uri: string };
}

/** Random bytes of each element's salt (ISO/IEC 18013-5 §9.1.2.5 asks for at least 16). */
const saltBytes = 32;

/**
 * An mdoc's `IssuerSigned` (OpenID4VCI 1.0 appendix A.2.4: base64url, no padding, of its CBOR): each
 * element with its own random salt and a random digest ID, the MSO with their SHA-256 digests, the
 * device key and validity (ISO/IEC 18013-5 §9.1.2.4), signed as a COSE_Sign1 with ES256 (-7) whose
 * unprotected header carries the x5chain.
 */
export async function issueMdoc(content: MdocContent, signer: MdocSigner): Promise<string> {
  if (content.deviceKey.kty !== 'EC') throw new Error('the device key must be a P-256 key');
  if (signer.chain.length === 0) throw new Error('the document signer chain is empty');
  const signingKey = signer.sign ?? signer.privateKey;
  if (signingKey === undefined) throw new Error('the signer has neither a private key nor a sign');
  const items = new Map<string, IssuerSignedItem[]>();
  const digests = new Map<string, Map<number, Uint8Array>>();
  for (const [namespace, elements] of Object.entries(content.namespaces)) {
    const entries = Object.entries(elements);
    const ids = digestIds(entries.length);
    const signedItems = entries.map(([elementIdentifier, elementValue], index) =>
      IssuerSignedItem.fromOptions({
        digestId: ids[index],
        random: new Uint8Array(randomBytes(saltBytes)),
        elementIdentifier,
        elementValue,
      }),
    );
    items.set(namespace, signedItems);
    digests.set(
      namespace,
      new Map(
        signedItems.map((item) => [item.digestId, sha256(item.encode({ asDataItem: true }))]),
      ),
    );
  }
  const mso = MobileSecurityObject.create({
    docType: content.doctype,
    digestAlgorithm: 'SHA-256',
    valueDigests: ValueDigests.create({ digests }),
    deviceKeyInfo: DeviceKeyInfo.create({
      deviceKey: coseKeyOf(content.deviceKey, DeviceKey),
    }),
    validityInfo: ValidityInfo.create({
      signed: content.signed,
      validFrom: content.validFrom,
      validUntil: content.validUntil,
    }),
  });
  if (content.status !== undefined) {
    // The Token Status List reference of an MSO (draft-ietf-oauth-status-list §6.3).
    const statusList = new Map<string, unknown>([
      ['idx', content.status.idx],
      ['uri', content.status.uri],
    ]);
    const fields = mso.decodedStructure as unknown as { set(key: string, value: unknown): void };
    fields.set('status', new Map([['status_list', statusList]]));
  }
  const ders = signer.chain.map((base64) => new Uint8Array(Buffer.from(base64, 'base64')));
  const issuerAuth = await IssuerAuth.create(
    {
      payload: mso,
      protectedHeaders: ProtectedHeaders.create({
        protectedHeaders: new Map([[Header.Algorithm, SignatureAlgorithm.ES256]]),
      }),
      // One certificate is a bstr, more an array (ISO/IEC 18013-5 §9.1.2.4, RFC 9360 §2).
      unprotectedHeaders: UnprotectedHeaders.create({
        unprotectedHeaders: new Map([[Header.X5Chain, ders.length === 1 ? ders[0] : ders]]),
      }),
      // The context signs with the signer's key; this names the document signer certificate's key.
      signingKey: coseKeyOf(ecJwkOfKeyObject(new X509Certificate(ders[0]).publicKey)),
      algorithm: SignatureAlgorithm.ES256,
    },
    mdocContext(signingKey),
  );
  const issuerSigned = IssuerSigned.create({
    issuerNamespaces: IssuerNamespaces.create({ issuerNamespaces: items }),
    issuerAuth,
  });
  return Buffer.from(issuerSigned.encode()).toString('base64url');
}

/** `count` distinct random digest IDs: they say nothing of an element's position. */
function digestIds(count: number): number[] {
  const ids = new Set<number>();
  while (ids.size < count) ids.add(randomInt(0, 2 ** 31 - 1));
  return [...ids];
}

function sha256(bytes: Uint8Array): Uint8Array {
  return new Uint8Array(createHash('sha256').update(bytes).digest());
}
