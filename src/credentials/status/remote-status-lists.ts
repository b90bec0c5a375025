import { Inject, Injectable, Logger } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { APP_CONFIG } from '../../config/config.token.js';
import { type AppConfig } from '../../config/app-config.js';
import { guardedRequest, OutboundError, type OutboundPolicy } from '../../common/outbound.js';
import { asArray, issuerIdOf, isJsonObject } from '../credential-checks.js';
import { decodeList, statusListLength } from './bitstring.js';

type Json = Record<string, unknown>;

/** A status list credential read from another origin, after its proof and issuer were checked. */
export interface RemoteList {
  issuer: string;
  purposes: string[];
  bits: Buffer;
}

/** Bounds of one fetch: lists of the minimum size are a few kilobytes even when full of noise. */
const fetchLimits = {
  timeoutMs: 5_000,
  maxBytes: 512 * 1024,
  headers: { accept: 'application/vc+ld+json, application/ld+json;q=0.9, application/json;q=0.8' },
};
/** A list is remembered as its Cache-Control allows, never longer than this. */
const maxCacheMs = 300_000;

/**
 * Status lists on other origins, fetched over HTTPS within fetchLimits and the outbound policy
 * (STATUS_LIST_ALLOW_PRIVATE_TARGETS), and remembered only once they verified.
 */
@Injectable()
export class RemoteStatusLists {
  private readonly logger = new Logger(RemoteStatusLists.name);
  private readonly policy: OutboundPolicy;
  private readonly verified = new LRUCache<string, RemoteList>({ max: 1_000 });

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.policy = { allowPrivate: config.statusListAllowPrivateTargets };
  }

  /**
   * The list at `url`, or why it cannot be used. `verify` checks the list credential's proofs and
   * issuer key and answers a problem or undefined.
   */
  async read(
    url: string,
    verify: (list: Json) => Promise<string | undefined>,
  ): Promise<RemoteList | string> {
    const remembered = this.verified.get(url);
    if (remembered !== undefined) return remembered;
    let response;
    try {
      response = await guardedRequest(url, this.policy, fetchLimits);
    } catch (error) {
      if (!(error instanceof OutboundError)) throw error;
      this.logger.warn({ event: 'status-list.fetch-failed', url, reason: error.message });
      return `the status list ${url} could not be fetched: ${error.message}`;
    }
    if (response.status !== 200) {
      return `the status list ${url} answered HTTP ${response.status}`;
    }
    let list: unknown;
    try {
      list = JSON.parse(response.body.toString('utf8'));
    } catch {
      return `the status list ${url} is not JSON`;
    }
    const read = readList(list);
    if (typeof read === 'string') return `the status list ${url} ${read}`;
    const problem = await verify(list as Json);
    if (problem !== undefined) return `the status list ${url} does not verify: ${problem}`;
    const ttl = cacheTtl(response.headers['cache-control']);
    if (ttl > 0) this.verified.set(url, read, { ttl });
    return read;
  }
}

/** The parts of a BitstringStatusListCredential a status check needs (§2.2), or what is wrong. */
function readList(list: unknown): RemoteList | string {
  if (!isJsonObject(list)) return 'is not a JSON object';
  if (!asArray(list.type).includes('BitstringStatusListCredential')) {
    return 'is not a BitstringStatusListCredential';
  }
  const subject = list.credentialSubject;
  if (!isJsonObject(subject) || typeof subject.encodedList !== 'string') {
    return 'has no credentialSubject.encodedList';
  }
  const issuer = issuerIdOf(list);
  if (issuer === undefined) return 'names no issuer';
  let bits: Buffer;
  try {
    bits = decodeList(subject.encodedList);
  } catch {
    return 'has an encodedList that is not GZIP in multibase base64url, or is too large';
  }
  // §3.2: a list shorter than the minimum is a STATUS_LIST_LENGTH_ERROR, as it gives no herd privacy.
  if (bits.length * 8 < statusListLength) {
    return `is ${bits.length * 8} entries long, shorter than the ${statusListLength} the specification requires`;
  }
  const purposes = asArray(subject.statusPurpose).filter(
    (purpose): purpose is string => typeof purpose === 'string',
  );
  return { issuer, purposes, bits };
}

/** How long an answer may be reused: its max-age, none with no-store or no-cache, capped. */
function cacheTtl(cacheControl: string | undefined): number {
  if (cacheControl === undefined || /no-(store|cache)/i.test(cacheControl)) return 0;
  const maxAge = /max-age=(\d+)/i.exec(cacheControl);
  return maxAge === null ? 0 : Math.min(Number(maxAge[1]) * 1000, maxCacheMs);
}
