import { dereferenceLocally, type DidDereferencer } from './did-resolution/local-dids.js';
import { keepContextsOf } from './jsonld-context-memo.js';

/** Nest's token for the one document loader the credential operations share. */
export const DOCUMENT_LOADER = Symbol('DOCUMENT_LOADER');

/** A context outside the allowlist: the credential cannot be processed without the network. */
export class ContextNotAllowedError extends Error {
  constructor(readonly url: string) {
    super(`The JSON-LD context '${url}' is not one this service knows.`);
    this.name = 'ContextNotAllowedError';
  }
}

/**
 * The JSON-LD document loader every credential operation uses: contexts from the allowlist, DIDs and
 * their keys from `dids` (by default did:key and did:jwk, derived from the DID itself, nothing
 * fetched); any other URL is refused, never fetched.
 */
export function createDocumentLoader(
  contexts: ReadonlyMap<string, unknown>,
  dids: DidDereferencer = dereferenceLocally,
): DocumentLoader {
  // The same URL always gives the same document here: jsonld may keep what it made of it.
  keepContextsOf(contexts);
  return async (url) => {
    const context = contexts.get(url);
    if (context !== undefined) return { contextUrl: null, documentUrl: url, document: context };
    if (url.startsWith('did:')) {
      return { contextUrl: null, documentUrl: url, document: await dids(url) };
    }
    throw new ContextNotAllowedError(url);
  };
}
