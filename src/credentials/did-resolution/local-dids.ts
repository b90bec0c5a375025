import { parse } from 'did-resolver';
import { LRUCache } from 'lru-cache';
import { ed25519DidDocument, p256MultikeyDidDocument } from '../../did/did-key.js';
import { ed25519PublicKeyOfDidKey, p256PublicKeyOfDidKey } from '../../jose/did-keys.js';
import { verificationLimits } from '../verification-limits.js';
import { dereferenceMethod, type DidDocumentJson } from './did-document.js';
import { didJwkDocument } from './did-jwk.js';
import { UnresolvableDidError, unsupportedMethod } from './unresolvable-did.js';

type Json = Record<string, unknown>;

/** A DID document, or one of its verification methods when the URL has a fragment. */
export type DidDereferencer = (url: string) => Promise<Json>;

/** The document of a did:key of an Ed25519 key (2020 suites form) or a P-256 key (Multikey). */
export function didKeyDocument(did: string): DidDocumentJson | string {
  const ed25519 = ed25519PublicKeyOfDidKey(did);
  if (ed25519 !== undefined) return ed25519DidDocument(ed25519) as unknown as DidDocumentJson;
  const p256 = p256PublicKeyOfDidKey(did);
  if (p256 !== undefined) return p256MultikeyDidDocument(p256) as unknown as DidDocumentJson;
  return 'only did:key DIDs of an Ed25519 (z6Mk…) or P-256 (zDn…) key are resolved';
}

/** A DID URL taken apart, within the URL limit; a path or query is refused. */
export function parseDidUrl(url: string): { did: string; method: string; fragment?: string } {
  if (url.length > verificationLimits.urlChars) {
    throw new UnresolvableDidError(
      url.slice(0, 100),
      `longer than ${verificationLimits.urlChars} characters`,
    );
  }
  const parsed = parse(url);
  if (parsed === null) throw unsupportedMethod(url);
  if (parsed.path !== undefined || parsed.query !== undefined) {
    throw new UnresolvableDidError(url, 'a DID URL with a path or query is not dereferenced');
  }
  return parsed;
}

/**
 * `url` in `document`, a copy of it: the document itself, or the verification method its fragment names
 * (only that copied: a verification dereferences one key, not the whole document).
 */
export function dereferenceIn(document: DidDocumentJson, url: string, fragment?: string): Json {
  if (fragment === undefined) return structuredClone(document);
  const method = dereferenceMethod(document, url);
  if (typeof method === 'string') throw new UnresolvableDidError(url, method);
  return structuredClone(method);
}

// A did:key document is a pure function of the DID, but deriving its X25519 key costs a field inversion.
const derived = new LRUCache<string, DidDocumentJson | string>({ max: 1_000 });

/**
 * did:key and did:jwk, derived from the DID alone, nothing fetched: what a document loader without
 * network access resolves (signing, tests); any other method is refused naming it.
 */
export const dereferenceLocally: DidDereferencer = (url) =>
  new Promise((resolve) => {
    const { did, method, fragment } = parseDidUrl(url);
    let document = derived.get(did);
    if (document === undefined) {
      document =
        method === 'key' ? didKeyDocument(did) : method === 'jwk' ? didJwkDocument(did) : '';
      if (document === '') throw unsupportedMethod(url);
      derived.set(did, document);
    }
    if (typeof document === 'string') throw new UnresolvableDidError(did, document);
    resolve(dereferenceIn(document, url, fragment));
  });
