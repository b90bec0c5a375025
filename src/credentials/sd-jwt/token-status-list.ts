import { deflateSync } from 'node:zlib';

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
