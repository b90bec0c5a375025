import { type KeyObject } from 'node:crypto';
import { elementValues } from '../../mdoc/elements.js';
import { issueMdoc } from '../../mdoc/issue-mdoc.js';
import { type EcPublicJwk, type PublicJwk } from '../../jose/jwk.js';
import { type StatusEntry } from '../status/status-index-allocator.js';

/** How long an mdoc is valid when its request does not say (an MSO always has validUntil). */
const defaultValiditySeconds = 31_536_000;

/** What one mdoc says besides its signature: the holder's elements, key, validity and status entry. */
export interface HolderMdoc {
  doctype: string;
  /** The elements as the offer gave them, by namespace then element identifier (JSON). */
  claims: Record<string, unknown>;
  deviceKey: PublicJwk;
  now: Date;
  expiresInSeconds: number | null;
  /** The revocation entry, when the credential is revocable. */
  revocation: StatusEntry | undefined;
}

/** The mdoc's device key is the holder's proved key: a P-256 key (ISO/IEC 18013-5 §9.1.5.2). */
export const isMdocDeviceKey = (jwk: PublicJwk): jwk is EcPublicJwk =>
  jwk.kty === 'EC' && jwk.crv === 'P-256';

/**
 * One mdoc's `IssuerSigned` as base64url CBOR (OpenID4VCI 1.0 appendix A.2.4): fresh salts for every
 * element, the holder's key as the MSO's deviceKey, the Token Status List entry the SD-JWT VCs use
 * (its `uri` the status list token), signed by the tenant's ES256 key under its document signer.
 */
export async function signHolderMdoc(
  mdoc: HolderMdoc,
  privateKey: KeyObject,
  chain: readonly string[],
): Promise<string> {
  const typed = elementValues(mdoc.claims);
  // The offers API typed the same claims with the same rules; a failure here is a bug, not input.
  if ('errors' in typed) throw new Error('the offer’s mdoc elements no longer type');
  const seconds = mdoc.expiresInSeconds ?? defaultValiditySeconds;
  const { revocation } = mdoc;
  return issueMdoc(
    {
      doctype: mdoc.doctype,
      namespaces: typed.values,
      deviceKey: mdoc.deviceKey,
      signed: mdoc.now,
      validFrom: mdoc.now,
      validUntil: new Date(mdoc.now.getTime() + seconds * 1000),
      ...(revocation === undefined
        ? {}
        : {
            status: {
              idx: Number(revocation.statusListIndex),
              uri: `${revocation.statusListCredential}/token`,
            },
          }),
    },
    { privateKey, chain },
  );
}
