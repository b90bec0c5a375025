import { type KeyObject } from 'node:crypto';
import { elementValues } from '../../mdoc/elements.js';
import { issueMdoc } from '../../mdoc/issue-mdoc.js';
import { type EcPublicJwk, type PublicJwk } from '../../jose/jwk.js';
import { type StatusEntry } from '../status/status-index-allocator.js';

/** How long an mdoc is valid when its request does not say (an MSO always has validUntil). */
const defaultValiditySeconds = 31_536_000;

/** An ISO/IEC 18013-5 mdoc (`mso_mdoc`) whose MSO's deviceKey is the holder's key. */
export interface MdocRequest {
  tenantId: string;
  offerId: string;
  configurationId: string;
  credentialIssuer: string;
  format: 'mso_mdoc';
  doctype: string;
  /** The elements by namespace, then element identifier, as JSON (typed when signed). */
  claims: Record<string, unknown>;
  /** The MSO's validity; a year when null (an MSO always has a validUntil). */
  expiresInSeconds: number | null;
  revocable: boolean;
}

/** The mdoc's device key is the holder's proved key: a P-256 key (ISO/IEC 18013-5 §9.1.5.2). */
export const isMdocDeviceKey = (jwk: PublicJwk): jwk is EcPublicJwk =>
  jwk.kty === 'EC' && jwk.crv === 'P-256';

/**
 * One mdoc per holder, each an `IssuerSigned` as base64url CBOR (OpenID4VCI 1.0 appendix A.2.4): fresh
 * salts for every element, the holder's key as the MSO's deviceKey, the Token Status List entry the
 * SD-JWT VCs use (its `uri` the status list token), signed by the tenant's ES256 key under its
 * document signer. `entries`: each holder's status entries, the revocation first.
 */
export async function signHolderMdocs(
  request: MdocRequest,
  holders: readonly { jwk: PublicJwk; credentialId: string }[],
  entries: readonly (readonly StatusEntry[])[],
  privateKey: KeyObject,
  chain: readonly string[],
  now: number,
): Promise<{ credentialId: string; credential: string }[]> {
  const typed = elementValues(request.claims);
  // The offers API typed the same claims with the same rules; a failure here is a bug, not input.
  if ('errors' in typed) throw new Error('the offer’s mdoc elements no longer type');
  const signed = new Date(now);
  const seconds = request.expiresInSeconds ?? defaultValiditySeconds;
  const issued = [];
  for (const [n, holder] of holders.entries()) {
    if (!isMdocDeviceKey(holder.jwk)) throw new Error('an mdoc’s device key is P-256');
    const revocation = entries[n][0];
    const credential = await issueMdoc(
      {
        doctype: request.doctype,
        namespaces: typed.values,
        deviceKey: holder.jwk,
        signed,
        validFrom: signed,
        validUntil: new Date(now + seconds * 1000),
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
    issued.push({ credentialId: holder.credentialId, credential });
  }
  return issued;
}
