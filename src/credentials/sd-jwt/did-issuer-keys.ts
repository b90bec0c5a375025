import { jwkOfDidKey } from '../../jose/did-keys.js';
import { type DidResolution } from '../did-resolution/did-resolution.js';
import { UnresolvableDidError } from '../did-resolution/unresolvable-did.js';
import { quotedChars, type IssuerJwk } from './jws.js';

type Json = Record<string, unknown>;

/**
 * The assertion (or `relationship`) keys of the issuer's DID that the header's `kid` may name, as JWKs with their method
 * id as `kid`: the one `kid` names (a DID URL of that DID, or a fragment), or without a `kid` every
 * assertion key. A key of another DID never speaks for the issuer.
 */
export async function didIssuerKeys(
  dids: DidResolution,
  did: string,
  kid: string | undefined,
  deadline: AbortSignal,
  relationship: 'assertionMethod' | 'authentication' = 'assertionMethod',
): Promise<IssuerJwk[] | string> {
  if (did.includes('#')) return 'the issuer is a DID URL, not a DID';
  const url = kid === undefined ? undefined : kid.startsWith('#') ? `${did}${kid}` : kid;
  if (url !== undefined && !url.startsWith(`${did}#`)) {
    return "the header's kid is not a key of the issuer's DID";
  }
  let document: Json;
  try {
    const [pinned] = (await dids.prefetch([did], deadline)).values();
    document = pinned ?? (await dids.rememberedOnly(did));
  } catch (error) {
    // The DID is the sender's `iss`: the reason quotes `quotedChars` of it at most.
    if (error instanceof UnresolvableDidError) {
      return error.message.replace(error.did, error.did.slice(0, quotedChars));
    }
    throw error;
  }
  const listed = document[relationship];
  const assertion = Array.isArray(listed) ? listed : [];
  const methods = Array.isArray(document.verificationMethod)
    ? (document.verificationMethod as Json[])
    : [];
  const keys: IssuerJwk[] = [];
  for (const id of assertion) {
    if (typeof id !== 'string' || (url !== undefined && id !== url)) continue;
    const jwk = jwkOf(methods.find((method) => method.id === id));
    if (jwk !== undefined) keys.push({ ...jwk, kid: kid ?? id });
  }
  if (keys.length === 0 && url !== undefined) {
    return `the header's kid is not an ${relationship} key of the DID`;
  }
  return keys;
}

/** A verification method's Ed25519 or P-256 key as a JWK, from its JWK or multibase form. */
function jwkOf(method: Json | undefined): IssuerJwk | undefined {
  if (method === undefined) return undefined;
  const { publicKeyJwk: jwk, publicKeyMultibase: multibase } = method;
  if (typeof jwk === 'object' && jwk !== null) {
    const { kty, crv, x, y } = jwk as Json;
    return { kty, crv, x, y } as IssuerJwk;
  }
  // A did:key's identifier is the multibase key itself: the same decoding, the same checks.
  return typeof multibase === 'string' ? jwkOfDidKey(`did:key:${multibase}`) : undefined;
}
