import { inflateSync } from 'node:zlib';
import QRCode from 'qrcode';

/**
 * Reads a QR code PNG as drawn here (8-bit grey, no row filter) back into its modules, sampling each
 * module's centre, and compares them with the modules the qrcode library encodes `link` into (level M,
 * margin 2): true when the picture is that link's code.
 */
export function pngShowsLink(png: Buffer, link: string): boolean {
  let width = 0;
  const data: Buffer[] = [];
  for (let at = 8; at < png.length;) {
    const length = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    const body = png.subarray(at + 8, at + 8 + length);
    if (type === 'IHDR') {
      width = body.readUInt32BE(0);
      if (body[8] !== 8 || body[9] !== 0) throw new Error('not an 8-bit grey PNG');
    }
    if (type === 'IDAT') data.push(body);
    at += 12 + length;
  }
  const pixels = inflateSync(Buffer.concat(data));
  const row = width + 1;
  for (let y = 0; y < width; y++)
    if (pixels[y * row] !== 0) throw new Error(`row ${y} is filtered`);
  const { modules } = QRCode.create(link, { errorCorrectionLevel: 'M' });
  const margin = 2;
  const scale = width / (modules.size + 2 * margin);
  const centre = (module: number) => Math.floor((module + margin + 0.5) * scale);
  for (let y = 0; y < modules.size; y++)
    for (let x = 0; x < modules.size; x++) {
      const dark = pixels[centre(y) * row + 1 + centre(x)] < 128;
      if (dark !== Boolean(modules.get(y, x))) return false;
    }
  return true;
}
