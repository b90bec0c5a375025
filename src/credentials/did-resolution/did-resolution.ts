import { Logger } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import {
  Resolver,
  type DIDDocument,
  type DIDResolutionResult,
  type DIDResolver,
  type ParsedDID,
  type WrappedResolver,
} from 'did-resolver';
import { type OutboundPolicy } from '../../common/outbound.js';
import { type DidDocumentJson } from './did-document.js';
import { didJwkDocument } from './did-jwk.js';
import { didWebLimits, readDidWeb } from './did-web.js';
import { dereferenceIn, didKeyDocument, parseDidUrl, type DidDereferencer } from './local-dids.js';
import { UnresolvableDidError, unsupportedMethod } from './unresolvable-did.js';

type Json = Record<string, unknown>;

/**
 * The DIDs verification resolves (did-resolver's registry): did:key and did:jwk from the DID itself,
 * did:web over https through the outbound guard when a policy is given. Every DID is remembered in
 * one bounded cache (did:web for its Cache-Control, within didWebLimits), and concurrent reads of one
 * did:web share one fetch. Anything else is refused, naming the method.
 *
 * Two ways in: `prefetch` fetches (before a verification step, within the request's deadline), and
 * `remembered`, what the document loader uses inside a step, never fetches: a step waiting on the
 * network would hold every other request's steps (verification-steps.ts).
 */
export class DidResolution {
  private readonly logger = new Logger(DidResolution.name);
  private readonly fetching: Resolver;
  private readonly remembering: Resolver;
  private readonly remembered = new LRUCache<string, DIDResolutionResult>({
    max: didWebLimits.remembered,
    maxSize: didWebLimits.rememberedBytes,
    // A did:web document is up to 64 KiB: a thousand of them would be 64 MiB.
    sizeCalculation: (result) => JSON.stringify(result).length,
  });
  private readonly reading = new Map<string, Promise<DIDResolutionResult>>();

  /** Without `webPolicy`, did:web is not resolved: nothing is fetched. */
  constructor(webPolicy?: OutboundPolicy) {
    const fetching: Record<string, DIDResolver> = {
      key: (did) => Promise.resolve(resolution(didKeyDocument(did))),
      jwk: (did) => Promise.resolve(resolution(didJwkDocument(did))),
    };
    const remembering: Record<string, DIDResolver> = { ...fetching };
    if (webPolicy !== undefined) {
      fetching.web = async (did) => {
        const read = await readDidWeb(did, webPolicy);
        if (typeof read.document === 'string') {
          this.logger.warn({ event: 'did-web.read-failed', did, reason: read.document });
        }
        return resolution(read.document, read.ttlMs);
      };
      remembering.web = () =>
        Promise.resolve(
          resolution(
            `its document was not read in the time a verification has for the documents it fetches (${didWebLimits.timeoutMs} ms)`,
          ),
        );
    }
    this.fetching = new Resolver(fetching, {
      cache: (parsed, resolve) => this.cached(parsed, resolve),
    });
    this.remembering = new Resolver(remembering, {
      cache: (parsed, resolve) =>
        parsed.method === 'web'
          ? Promise.resolve(this.remembered.get(parsed.did) ?? resolve())
          : this.cached(parsed, resolve),
    });
  }

  /** The DID document or verification method a DID URL names, fetching a did:web's when needed. */
  readonly dereference: DidDereferencer = (url) => dereferenceWith(this.fetching, url);

  /** Like `dereference`, with a did:web's document only when it is remembered: never fetches. */
  readonly rememberedOnly: DidDereferencer = (url) => dereferenceWith(this.remembering, url);

  /**
   * Each of `urls` that is a DID URL, dereferenced at the same time, by `deadline` at the latest:
   * what resolved, to pin for the verification step that follows. What did not is left out; the
   * step's loader then answers why (remembered failure, or not read in time).
   */
  async prefetch(urls: readonly string[], deadline: AbortSignal): Promise<Map<string, Json>> {
    const pinned = new Map<string, Json>();
    const dids = [...new Set(urls.filter((url) => url.startsWith('did:')))];
    const work = Promise.all(
      dids.map(async (url) => {
        try {
          pinned.set(url, await this.dereference(url));
        } catch (error) {
          if (!(error instanceof UnresolvableDidError)) throw error;
        }
      }),
    );
    await byDeadline(work, deadline);
    // A copy: what resolves after the deadline must not change what the step sees.
    return new Map(pinned);
  }

  private cached(parsed: ParsedDID, resolve: WrappedResolver): Promise<DIDResolutionResult> {
    const remembered = this.remembered.get(parsed.did);
    if (remembered !== undefined) return Promise.resolve(remembered);
    let reading = this.reading.get(parsed.did);
    if (reading === undefined) {
      reading = resolve()
        .then((result) => {
          const ttl = (result.didResolutionMetadata as { ttlMs?: number }).ttlMs;
          this.remembered.set(parsed.did, result, ttl === undefined ? {} : { ttl });
          return result;
        })
        .finally(() => this.reading.delete(parsed.did));
      this.reading.set(parsed.did, reading);
    }
    return reading;
  }
}

async function dereferenceWith(resolver: Resolver, url: string): Promise<Json> {
  const { did, fragment } = parseDidUrl(url);
  const result = await resolver.resolve(did);
  const { error, message } = result.didResolutionMetadata as { error?: string; message?: string };
  if (error === 'unsupportedDidMethod' || error === 'invalidDid') throw unsupportedMethod(url);
  if (result.didDocument === null) {
    throw new UnresolvableDidError(did, message ?? error ?? 'no DID document');
  }
  return dereferenceIn(result.didDocument as unknown as DidDocumentJson, url, fragment);
}

/** Settles when `work` does or `deadline` aborts, whichever is first. */
function byDeadline(work: Promise<unknown>, deadline: AbortSignal): Promise<void> {
  if (deadline.aborted) return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    const abort = () => resolve();
    deadline.addEventListener('abort', abort, { once: true });
    work
      .then(
        () => resolve(),
        (error: unknown) => reject(error instanceof Error ? error : new Error(String(error))),
      )
      .finally(() => deadline.removeEventListener('abort', abort));
  });
}

/** did-resolver's result for a document or the reason there is none; `ttlMs` is how long it holds. */
function resolution(document: DidDocumentJson | string, ttlMs?: number): DIDResolutionResult {
  return typeof document === 'string'
    ? {
        didResolutionMetadata: { error: 'notFound', message: document, ttlMs },
        didDocument: null,
        didDocumentMetadata: {},
      }
    : {
        didResolutionMetadata: { contentType: 'application/did+json', ttlMs },
        didDocument: document as unknown as DIDDocument,
        didDocumentMetadata: {},
      };
}
