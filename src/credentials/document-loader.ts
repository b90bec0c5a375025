import { LRUCache } from 'lru-cache';
import { ed25519DidDocument, ed25519PublicKeyOfDidKey } from '../did/did-key.js';

/** Nest's token for the one document loader the credential operations share. */
export const DOCUMENT_LOADER = Symbol('DOCUMENT_LOADER');

/** A context outside the allowlist: the credential cannot be processed without the network. */
export class ContextNotAllowedError extends Error {
  constructor(readonly url: string) {
    super(`The JSON-LD context '${url}' is not one this service knows.`);
    this.name = 'ContextNotAllowedError';
  }
}

/** A DID this service cannot resolve without the network (only did:key is resolved, locally). */
export class UnresolvableDidError extends Error {
  constructor(readonly did: string) {
    super(`Cannot resolve '${did}': only did:key DIDs with an Ed25519 key are resolved.`);
    this.name = 'UnresolvableDidError';
  }
}

/**
 * The JSON-LD document loader every credential operation uses: contexts from the allowlist, did:key
 * DIDs and their keys derived from the DID itself; anything else is refused, never fetched.
 */
export function createDocumentLoader(contexts: ReadonlyMap<string, unknown>): DocumentLoader {
  // A did:key document is a pure function of the DID, but deriving its X25519 key costs a field inversion.
  const dids = new LRUCache<string, object>({ max: 1_000 });
  const load = (url: string): RemoteDocument => {
    const context = contexts.get(url);
    if (context !== undefined) return { contextUrl: null, documentUrl: url, document: context };
    if (url.startsWith('did:')) {
      let document = dids.get(url);
      if (document === undefined) {
        document = resolveDid(url);
        dids.set(url, document);
      }
      // A copy: a caller that changes what it loaded must not change what the next one loads.
      return { contextUrl: null, documentUrl: url, document: structuredClone(document) };
    }
    throw new ContextNotAllowedError(url);
  };
  return (url) => new Promise((resolve) => resolve(load(url)));
}

/** A DID document, or one of its verification methods when the URL has a fragment. */
function resolveDid(url: string): object {
  const [did = '', fragment] = url.split('#', 2);
  const publicKey = ed25519PublicKeyOfDidKey(did);
  if (publicKey === undefined) throw new UnresolvableDidError(did);
  const document = ed25519DidDocument(publicKey);
  if (fragment === undefined) return document;
  const method = document.verificationMethod.find((candidate) => candidate.id === url);
  if (method === undefined) throw new UnresolvableDidError(url);
  return { '@context': document['@context'], ...method };
}
