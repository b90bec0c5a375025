import { LRUCache } from 'lru-cache';

/** What one read gave (a value, or why there is none) and how long it may be reused. */
export interface Read<T> {
  result: T | string;
  ttlMs: number;
}

export interface RememberedReadsOptions<T> {
  /** Entries kept, values and failures. */
  max: number;
  /** What the entries may weigh together, by `sizeOf`. */
  maxSize: number;
  sizeOf: (value: T) => number;
  /** A failure is not read again for this long: a host that is down is not asked at every answer. */
  failureTtlMs: number;
  /** The shared read's own deadline: never a caller's, whose time may end before another's. */
  deadlineMs: number;
}

/**
 * Documents read from elsewhere (JWT VC Issuer Metadata, Status List Tokens), each remembered for the
 * time its read allows in a bounded LRU; concurrent reads of one key share one fetch. The fetch runs by
 * its own deadline (`deadlineMs`); a caller stops waiting when its own deadline aborts, and the fetch
 * goes on for the next caller: one request running out of time is never remembered for every tenant.
 */
export class RememberedReads<T extends object> {
  private readonly remembered: LRUCache<string, { result: T | string }>;
  private readonly reading = new Map<string, Promise<T | string>>();

  constructor(private readonly options: RememberedReadsOptions<T>) {
    this.remembered = new LRUCache({
      max: options.max,
      maxSize: options.maxSize,
      sizeCalculation: ({ result }) =>
        typeof result === 'string' ? result.length + 1 : Math.max(1, options.sizeOf(result)),
    });
  }

  read(
    key: string,
    fetch: (signal: AbortSignal) => Promise<Read<T>>,
    deadline: AbortSignal,
    late: string,
  ): Promise<T | string> {
    const remembered = this.remembered.get(key);
    if (remembered !== undefined) return Promise.resolve(remembered.result);
    if (deadline.aborted) return Promise.resolve(late);
    let reading = this.reading.get(key);
    if (reading === undefined) {
      reading = fetch(AbortSignal.timeout(this.options.deadlineMs))
        .then(({ result, ttlMs }) => {
          const ttl = typeof result === 'string' ? this.options.failureTtlMs : ttlMs;
          if (ttl > 0) this.remembered.set(key, { result }, { ttl });
          return result;
        })
        .finally(() => this.reading.delete(key));
      this.reading.set(key, reading);
    }
    return byDeadline(reading, deadline, late);
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

/** How long an answer may be reused by its Cache-Control: `max-age`, none with no-store or no-cache. */
export function cacheControlTtlMs(cacheControl: string | undefined, fallbackMs: number): number {
  if (cacheControl === undefined) return fallbackMs;
  if (/no-(store|cache)/i.test(cacheControl)) return 0;
  const maxAge = /max-age=(\d+)/i.exec(cacheControl);
  return maxAge === null ? fallbackMs : Number(maxAge[1]) * 1000;
}
