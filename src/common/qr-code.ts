export type QrFormat = 'svg' | 'png';

/** A link as a QR code a person scans: SVG text or a 512-pixel PNG. */
export async function drawQrCode(link: string, format: QrFormat): Promise<string | Buffer> {
  const options = { errorCorrectionLevel: 'M' as const, margin: 2 };
  // Loaded when first drawn: a few MB that a service which never draws one does not carry.
  const { default: QRCode } = await import('qrcode');
  return format === 'svg'
    ? QRCode.toString(link, { ...options, type: 'svg' })
    : QRCode.toBuffer(link, { ...options, type: 'png', width: 512 });
}
