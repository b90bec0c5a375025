import { jwkOfDidJwk } from '../../jose/did-keys.js';
import { type DidDocumentJson, type JsonWebKeyJson } from './did-document.js';

/**
 * The DID document of a did:jwk (did:jwk specification §2.2, "Read"): the DID is the base64url of the
 * public JWK, and its one verification method `#0` holds that key, for signing unless the key says
 * `use: enc`. Otherwise why it is none: no JWK, or one with a private key.
 */
export function didJwkDocument(did: string): DidDocumentJson | string {
  const jwk = jwkOfDidJwk(did);
  if (typeof jwk === 'string') return jwk;
  const key = jwk as JsonWebKeyJson;
  // A did:jwk carrying a private key is a leaked key: refused rather than used.
  if ('d' in key) return 'its JWK holds a private key (d)';
  const id = `${did}#0`;
  const method = { id, type: 'JsonWebKey2020', controller: did, publicKeyJwk: key };
  const signing = key.use !== 'enc';
  const encrypting = key.use !== 'sig';
  return {
    '@context': ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/suites/jws-2020/v1'],
    id: did,
    verificationMethod: [method],
    ...(signing
      ? {
          assertionMethod: [id],
          authentication: [id],
          capabilityInvocation: [id],
          capabilityDelegation: [id],
        }
      : {}),
    ...(encrypting ? { keyAgreement: [id] } : {}),
  };
}
