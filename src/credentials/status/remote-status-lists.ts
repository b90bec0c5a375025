import { Inject, Injectable, Logger } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { CLOCK, type Clock } from '../../common/clock.js';
import { Settings } from '../../config/settings.js';
import { guardedRequest, OutboundError, type OutboundPolicy } from '../../common/outbound.js';
import { asArray, issuerIdOf, isJsonObject } from '../credential-checks.js';
import { remoteStatusListLimits } from '../verification-limits.js';
import { decodeList, statusListLength } from './bitstring.js';

type Json = Record<string, unknown>;

/** A status list credential read from another origin, after its proof and issuer were checked. */
export interface RemoteList {
  issuer: string;
  purposes: string[];
  bits: Buffer;
}

const fetchLimits = {
  timeoutMs: remoteStatusListLimits.deadlineMs,
  maxBytes: remoteStatusListLimits.bytes,
  headers: { accept: 'application/vc+ld+json, application/ld+json;q=0.9, application/json;q=0.8' },
};

/** What reading a list gave: the list, or why it cannot be used. */
type ReadResult = RemoteList | string;

/**
 * Status lists on other origins, fetched over HTTPS within remoteStatusListLimits and the outbound
 * policy (STATUS_LIST_ALLOW_PRIVATE_TARGETS). A verified list is remembered for its Cache-Control
 * max-age, a failure for a short while; concurrent reads of one URL share one fetch.
 */
@Injectable()
export class RemoteStatusLists {
  private readonly logger = new Logger(RemoteStatusLists.name);
  private readonly policy: OutboundPolicy;
  private readonly remembered = new LRUCache<string, { result: ReadResult }>({
    max: remoteStatusListLimits.remembered,
  });
  private readonly reading = new Map<string, Promise<ReadResult>>();

  constructor(
    settings: Settings,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.policy = {
      allowPrivate: settings.statusListAllowPrivateTargets,
      ca: settings.OUTBOUND_CA_FILE,
    };
  }

  /**
   * The list at `url`, or why it cannot be used, by `deadline` at the latest. `verify` checks the
   * list credential's limits, proofs, issuer key and validity period, and answers what is wrong
   * ("does not verify: …", "is outside its validity period: …") or undefined.
   */
  async read(
    url: string,
    verify: (list: Json) => Promise<string | undefined>,
    deadline: AbortSignal,
  ): Promise<ReadResult> {
    const remembered = this.remembered.get(url);
    if (remembered !== undefined) return remembered.result;
    const late = `the status list ${url} was not read within ${remoteStatusListLimits.deadlineMs} ms, the time a verification has for all its status lists`;
    if (deadline.aborted) return late;
    let reading = this.reading.get(url);
    if (reading === undefined) {
      reading = this.fetchAndVerify(url, verify).finally(() => this.reading.delete(url));
      this.reading.set(url, reading);
    }
    return byDeadline(reading, deadline, late);
  }

  private async fetchAndVerify(
    url: string,
    verify: (list: Json) => Promise<string | undefined>,
  ): Promise<ReadResult> {
    const { result, ttl } = await this.fetchList(url, verify);
    if (typeof result === 'string') {
      this.logger.warn({ event: 'status-list.fetch-failed', url, reason: result });
      this.remembered.set(url, { result }, { ttl: remoteStatusListLimits.failureTtlMs });
    } else if (ttl > 0) {
      this.remembered.set(url, { result }, { ttl });
    }
    return result;
  }

  private async fetchList(
    url: string,
    verify: (list: Json) => Promise<string | undefined>,
  ): Promise<{ result: ReadResult; ttl: number }> {
    const failed = (problem: string) => ({ result: `the status list ${url} ${problem}`, ttl: 0 });
    let response;
    try {
      response = await guardedRequest(url, this.policy, fetchLimits);
    } catch (error) {
      if (!(error instanceof OutboundError)) throw error;
      return failed(`could not be fetched: ${error.message}`);
    }
    if (response.status >= 300 && response.status < 400) {
      // The outbound guard follows none: the URL the issuer signed into the credential is the list's.
      return failed(
        `answered HTTP ${response.status} (a redirect to ${response.headers.location ?? 'nowhere'}), which is not followed: a status list is read only at the URL the credential names`,
      );
    }
    if (response.status !== 200) return failed(`answered HTTP ${response.status}`);
    let list: unknown;
    try {
      list = JSON.parse(response.body.toString('utf8'));
    } catch {
      return failed('is not JSON');
    }
    const read = readList(list);
    if (typeof read === 'string') return failed(read);
    const problem = await verify(list as Json);
    if (problem !== undefined) return failed(problem);
    // Never remembered past its own end: an expired list must fail the next verification.
    const ends = Date.parse(String((list as Json).validUntil ?? (list as Json).expirationDate));
    const ttl = cacheTtl(response.headers['cache-control']);
    return { result: read, ttl: Number.isNaN(ends) ? ttl : Math.min(ttl, ends - this.clock()) };
  }
}

/** What `work` settles to, or `late` once `deadline` aborts first. */
function byDeadline<T>(work: Promise<T>, deadline: AbortSignal, late: T): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const abort = () => resolve(late);
    deadline.addEventListener('abort', abort, { once: true });
    work.then(resolve, reject).finally(() => deadline.removeEventListener('abort', abort));
  });
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
  return maxAge === null ? 0 : Math.min(Number(maxAge[1]) * 1000, remoteStatusListLimits.maxTtlMs);
}
