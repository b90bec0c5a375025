import { cacheControlTtlMs, RememberedReads } from './remembered-reads.js';

describe('RememberedReads', () => {
  const reads = () =>
    new RememberedReads<{ value: number }>({
      max: 10,
      maxSize: 100,
      sizeOf: () => 1,
      failureTtlMs: 60_000,
      deadlineMs: 60_000,
    });

  it('shares one fetch between concurrent reads of a key, and remembers it for its ttl', async () => {
    const remembered = reads();
    let fetches = 0;
    let release: () => void = () => undefined;
    const fetch = () =>
      new Promise<{ result: { value: number }; ttlMs: number }>((resolve) => {
        fetches++;
        release = () => resolve({ result: { value: fetches }, ttlMs: 60_000 });
      });
    const deadline = new AbortController().signal;
    const both = Promise.all([
      remembered.read('a', fetch, deadline, 'late'),
      remembered.read('a', fetch, deadline, 'late'),
    ]);
    release();
    expect(await both).toEqual([{ value: 1 }, { value: 1 }]);
    expect(await remembered.read('a', fetch, deadline, 'late')).toEqual({ value: 1 });
    expect(fetches).toBe(1);
  });

  it('answers late once the caller’s deadline aborts, and remembers a failure', async () => {
    const remembered = reads();
    const aborted = new AbortController();
    const pending = remembered.read(
      'b',
      () => new Promise(() => undefined),
      aborted.signal,
      'late',
    );
    aborted.abort();
    expect(await pending).toBe('late');
    let fetches = 0;
    const failing = () => {
      fetches++;
      return Promise.resolve({ result: 'is down', ttlMs: 0 });
    };
    const open = new AbortController().signal;
    expect(await remembered.read('c', failing, open, 'late')).toBe('is down');
    expect(await remembered.read('c', failing, open, 'late')).toBe('is down');
    expect(fetches).toBe(1);
  });

  it('fetches by its own deadline: a caller whose time ends stops waiting, the read goes on for the next', async () => {
    const remembered = reads();
    const first = new AbortController();
    let fetchSignal: AbortSignal | undefined;
    let release: () => void = () => undefined;
    let fetches = 0;
    const fetch = (signal: AbortSignal) =>
      new Promise<{ result: { value: number } | string; ttlMs: number }>((resolve) => {
        fetches++;
        fetchSignal = signal;
        // A fetch that obeys its signal would fail on the caller's abort: the signal is its own.
        release = () =>
          resolve(
            signal.aborted
              ? { result: 'aborted', ttlMs: 0 }
              : { result: { value: 7 }, ttlMs: 60_000 },
          );
      });
    const late = remembered.read('d', fetch, first.signal, 'late');
    first.abort();
    expect(await late).toBe('late');
    expect(fetchSignal?.aborted).toBe(false);
    const other = remembered.read('d', fetch, new AbortController().signal, 'late');
    release();
    expect(await other).toEqual({ value: 7 });
    expect(fetches).toBe(1);
  });

  it('reads Cache-Control: max-age, nothing with no-store or no-cache, else the fallback', () => {
    expect(cacheControlTtlMs('public, max-age=60', 5)).toBe(60_000);
    expect(cacheControlTtlMs('no-store', 5)).toBe(0);
    expect(cacheControlTtlMs('max-age=60, no-cache', 5)).toBe(0);
    expect(cacheControlTtlMs(undefined, 5)).toBe(5);
    expect(cacheControlTtlMs('public', 5)).toBe(5);
  });
});
