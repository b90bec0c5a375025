import { jest } from '@jest/globals';
import { pngShowsLink } from '../../test/support/qr-png.js';
import { drawQrCode, QrCodes, type QrCode, type QrFormat } from './qr-code.js';

const link = (n: number) => `openid4vp://?request_uri=https%3A%2F%2Fverifier.example%2Fr%2F${n}`;

describe(QrCodes.name, () => {
  let now: number;
  let drawn: string[];
  let release: (() => void)[];
  const until = (ms: number) => new Date(now + ms);
  const draw = (text: string, format: QrFormat): Promise<QrCode> => {
    drawn.push(`${format} ${text}`);
    return Promise.resolve(format === 'svg' ? `<svg>${text}</svg>` : Buffer.alloc(100));
  };
  const codes = (bounds: Partial<{ entries: number; bytes: number }> = {}) =>
    new QrCodes({ entries: 3, bytes: 1000, drawings: 2, waiting: 2, ...bounds }, draw, () => now);

  beforeEach(() => {
    now = 1_000_000;
    drawn = [];
    release = [];
  });

  it('draws a link once per format and answers it again while its life lasts', async () => {
    const cache = codes();
    expect(await cache.codeOf(link(1), 'svg', until(60_000))).toBe(`<svg>${link(1)}</svg>`);
    await cache.codeOf(link(1), 'svg', until(60_000));
    await cache.codeOf(link(1), 'png', until(60_000));
    expect(drawn).toEqual([`svg ${link(1)}`, `png ${link(1)}`]);
  });

  it('never answers a code past the end of its offer’s life, and drops it', async () => {
    const cache = codes();
    const end = until(1000);
    await cache.codeOf(link(1), 'png', end);
    now += 1000;
    await cache.codeOf(link(2), 'png', until(60_000));
    expect(cache.size.entries).toBe(1);
    await cache.codeOf(link(1), 'png', end);
    expect(drawn).toEqual([`png ${link(1)}`, `png ${link(2)}`, `png ${link(1)}`]);
    // Already over: drawn for the caller, not kept.
    expect(cache.size.entries).toBe(1);
  });

  it('drops a code within a minute of its life’s end even when nothing else is drawn', async () => {
    jest.useFakeTimers();
    try {
      const cache = codes();
      await cache.codeOf(link(1), 'png', until(1000));
      jest.advanceTimersByTime(60_000);
      expect(cache.size.entries).toBe(1);
      now += 1000;
      jest.advanceTimersByTime(60_000);
      expect(cache.size).toEqual({ entries: 0, bytes: 0 });
    } finally {
      jest.useRealTimers();
    }
  });

  it('keeps at most its count of codes, dropping the least recently used', async () => {
    const cache = codes();
    for (const n of [1, 2, 3]) await cache.codeOf(link(n), 'png', until(60_000));
    await cache.codeOf(link(1), 'png', until(60_000)); // 1 is now the most recent
    await cache.codeOf(link(4), 'png', until(60_000)); // 2 goes
    expect(cache.size).toEqual({ entries: 3, bytes: 300 });
    drawn.length = 0;
    for (const n of [1, 3, 4]) await cache.codeOf(link(n), 'png', until(60_000));
    expect(drawn).toEqual([]);
    await cache.codeOf(link(2), 'png', until(60_000));
    expect(drawn).toEqual([`png ${link(2)}`]);
  });

  it('keeps at most its bytes', async () => {
    const cache = codes({ entries: 100, bytes: 250 });
    for (const n of [1, 2, 3]) await cache.codeOf(link(n), 'png', until(60_000));
    expect(cache.size).toEqual({ entries: 2, bytes: 200 });
  });

  it('shares one drawing among callers, queues beyond its drawings, and refuses at once beyond its queue', async () => {
    const slow = (text: string): Promise<QrCode> =>
      new Promise((resolve) => release.push(() => resolve(text)));
    const cache = new QrCodes(
      { entries: 10, bytes: 1000, drawings: 2, waiting: 1 },
      slow,
      () => now,
    );
    const first = [1, 1, 1].map(() => cache.codeOf(link(1), 'svg', until(60_000)));
    const second = cache.codeOf(link(2), 'svg', until(60_000));
    const queued = cache.codeOf(link(3), 'svg', until(60_000));
    await expect(cache.codeOf(link(4), 'svg', until(60_000))).rejects.toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      status: 503,
      headers: { 'Retry-After': '1' },
    });
    // Two drawn at once; the third waits for a place.
    await Promise.resolve();
    expect(release).toHaveLength(2);
    release[0]();
    expect(await Promise.all(first)).toEqual([link(1), link(1), link(1)]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(release).toHaveLength(3);
    release[1]();
    release[2]();
    expect(await second).toBe(link(2));
    expect(await queued).toBe(link(3));
    // The places are free again.
    const fourth = cache.codeOf(link(4), 'svg', until(60_000));
    await new Promise((resolve) => setImmediate(resolve));
    release[3]();
    expect(await fourth).toBe(link(4));
  });
});

describe(drawQrCode.name, () => {
  it('draws a 512-pixel grey PNG that shows the link’s modules', async () => {
    const png = (await drawQrCode(link(7), 'png')) as Buffer;
    expect(png.readUInt32BE(16)).toBe(512);
    expect(pngShowsLink(png, link(7))).toBe(true);
    expect(pngShowsLink(png, link(8))).toBe(false);
  });

  it('draws an SVG', async () => {
    expect(await drawQrCode(link(7), 'svg')).toMatch(
      /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/,
    );
  });
});
