import { DomainException } from './problem/domain.exception.js';

export type QrFormat = 'svg' | 'png';
export type QrCode = string | Buffer;

/**
 * The PNG encoder's options: no row filter and grey levels instead of RGBA. Its default (every
 * filter tried on each row, RGBA) costs about five times the CPU for a file half the size
 * (docs/performance.md).
 */
const pngRendererOptions = { deflateLevel: 9, filterType: 0, colorType: 0 };

/** A link as a QR code a person scans: SVG text or a 512-pixel PNG. */
export async function drawQrCode(link: string, format: QrFormat): Promise<QrCode> {
  const options = { errorCorrectionLevel: 'M' as const, margin: 2 };
  // Loaded when first drawn: a few MB that a service which never draws one does not carry.
  const { default: QRCode } = await import('qrcode');
  return format === 'svg'
    ? QRCode.toString(link, { ...options, type: 'svg' })
    : QRCode.toBuffer(link, {
        ...options,
        type: 'png',
        width: 512,
        rendererOpts: pngRendererOptions,
      });
}

/** How many codes a process keeps and draws at once (docs/performance.md, QR codes). */
export const qrCodeBounds = {
  /** Codes kept: an offer's or request's SVG and PNG are two. */
  entries: 256,
  /** Their bytes in all: a PNG is about 15 KB, an SVG 6 KB. */
  bytes: 4 * 1024 * 1024,
  /** Different codes drawn at the same moment (the drawing is CPU work: about the cores). */
  drawings: 2,
  /** Drawings waiting for their turn (about half a second's work); one more is answered 503 at once. */
  waiting: 64,
} as const;

const sweepIntervalMs = 60_000;

interface Kept {
  code: QrCode;
  /** Milliseconds since the epoch: the end of the offer's or request's life. */
  until: number;
  bytes: number;
}

/**
 * Each link's QR code drawn once and kept, until its offer or request ends (the caller checks that
 * it is still open before asking), within a count and a byte bound, the least recently used going
 * first. Asked for a code being drawn, it waits for that drawing. At most `drawings` are drawn at
 * once and `waiting` wait for their turn; one more is refused at once (503 with Retry-After).
 */
export class QrCodes {
  private readonly kept = new Map<string, Kept>();
  private readonly drawing = new Map<string, Promise<QrCode>>();
  private readonly turns: (() => void)[] = [];
  private drawingNow = 0;
  private bytes = 0;
  private sweeper: NodeJS.Timeout | undefined;

  constructor(
    private readonly bounds: {
      entries: number;
      bytes: number;
      drawings: number;
      waiting: number;
    } = qrCodeBounds,
    private readonly draw: (link: string, format: QrFormat) => Promise<QrCode> = drawQrCode,
    private readonly now: () => number = Date.now,
  ) {}

  /** The link's code in `format`, drawn at most once while `until` (the end of its life) is ahead. */
  async codeOf(link: string, format: QrFormat, until: Date): Promise<QrCode> {
    const key = `${format} ${link}`;
    const found = this.kept.get(key);
    if (found !== undefined && found.until > this.now()) {
      // Most recently used last: the Map keeps insertion order.
      this.kept.delete(key);
      this.kept.set(key, found);
      return found.code;
    }
    const pending = this.drawing.get(key);
    if (pending !== undefined) return pending;
    if (this.drawingNow >= this.bounds.drawings && this.turns.length >= this.bounds.waiting)
      throw new DomainException(
        'SERVICE_UNAVAILABLE',
        'Too many QR codes are being drawn; try again in a second.',
        undefined,
        { 'Retry-After': '1' },
      );
    const drawn = this.inTurn(() => this.draw(link, format)).finally(() =>
      this.drawing.delete(key),
    );
    this.drawing.set(key, drawn);
    const code = await drawn;
    this.keep(key, code, until.getTime());
    return code;
  }

  /** Runs `work` when one of the `drawings` places is free, in the order asked. */
  private async inTurn<T>(work: () => Promise<T>): Promise<T> {
    if (this.drawingNow < this.bounds.drawings) this.drawingNow++;
    else await new Promise<void>((resolve) => this.turns.push(resolve));
    try {
      return await work();
    } finally {
      // The place goes to the next in line, or is freed.
      const next = this.turns.shift();
      if (next === undefined) this.drawingNow--;
      else next();
    }
  }

  /** How many codes and bytes are kept. */
  get size(): { entries: number; bytes: number } {
    return { entries: this.kept.size, bytes: this.bytes };
  }

  private keep(key: string, code: QrCode, until: number): void {
    const bytes = typeof code === 'string' ? Buffer.byteLength(code) : code.length;
    const now = this.now();
    this.forget(key);
    if (until <= now || bytes > this.bounds.bytes) return;
    // Codes past their life go first, then the least recently used, until the new one fits.
    this.sweep();
    for (const [other] of this.kept) {
      if (this.kept.size < this.bounds.entries && this.bytes + bytes <= this.bounds.bytes) break;
      this.forget(other);
    }
    this.kept.set(key, { code, until, bytes });
    this.bytes += bytes;
    // A code is dropped at most a minute past its life even when nothing else is drawn.
    this.sweeper ??= setInterval(() => this.sweep(), sweepIntervalMs).unref();
  }

  /** Drops the codes past their life. */
  private sweep(): void {
    const now = this.now();
    for (const [key, kept] of this.kept) if (kept.until <= now) this.forget(key);
  }

  private forget(key: string): void {
    const kept = this.kept.get(key);
    if (kept === undefined) return;
    this.kept.delete(key);
    this.bytes -= kept.bytes;
  }
}

/** The process's codes, shared by offers and presentation requests. */
export const qrCodes = new QrCodes();
