import { deflateSync, inflateSync } from 'node:zlib';

/**
 * A Bitstring Status List's bits (index 0 the most significant bit of byte 0, Bitstring Status List
 * §2.1) in the Token Status List's order for 1-bit statuses (index 0 the least significant bit of byte
 * 0, draft-ietf-oauth-status-list §4.1): each byte's bits reversed.
 */
export function tokenStatusListBytes(bits: Uint8Array): Uint8Array {
  const bytes = new Uint8Array(bits.length);
  for (let n = 0; n < bits.length; n++) bytes[n] = reversed[bits[n]];
  return bytes;
}

/** `lst` of a Status List in JSON (§4.2): base64url of the ZLIB-compressed (RFC 1950) bytes. */
export function encodeLst(bytes: Uint8Array): string {
  return deflateSync(bytes, { level: 9 }).toString('base64url');
}

/** Each byte with its bits in the opposite order. */
const reversed = Uint8Array.from({ length: 256 }, (_, byte) => {
  let out = 0;
  for (let bit = 0; bit < 8; bit++) if (byte & (1 << bit)) out |= 0x80 >> bit;
  return out;
});

/** Bits per status a Status List may use (draft-ietf-oauth-status-list §4.1). */
export const statusListBitSizes = [1, 2, 4, 8] as const;

/** The most a received `lst` may inflate to: 16,777,216 1-bit statuses, as for Bitstring lists. */
export const maxInflatedStatusListBytes = 2 * 1024 * 1024;

/** The bytes of a received `lst` (§4.2), or why they cannot be read: not ZLIB in base64url, or too large. */
export function decodeLst(lst: string): Uint8Array | string {
  if (!/^[A-Za-z0-9_-]+$/.test(lst)) return 'its lst is not base64url';
  try {
    return inflateSync(Buffer.from(lst, 'base64url'), {
      maxOutputLength: maxInflatedStatusListBytes,
    });
  } catch {
    return `its lst is not a ZLIB stream of at most ${maxInflatedStatusListBytes} bytes`;
  }
}

/**
 * The status at `idx` of a list of `bits`-bit statuses (§4.1: index 0 in the least significant bits
 * of byte 0), or why there is none: an index past the list's end.
 */
export function statusAt(bytes: Uint8Array, bits: number, idx: number): number | string {
  const position = idx * bits;
  if (!Number.isSafeInteger(position) || position + bits > bytes.length * 8) {
    return pastTheEnd(idx, (bytes.length * 8) / bits);
  }
  return (bytes[Math.floor(position / 8)] >> (position % 8)) & ((1 << bits) - 1);
}

/** Why a list of `statuses` statuses has none at `idx`. */
export function pastTheEnd(idx: number, statuses: number): string {
  return `the index ${idx} is past the list's end (${statuses} statuses)`;
}
