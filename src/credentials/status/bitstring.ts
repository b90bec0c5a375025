import { gunzipSync, gzipSync } from 'node:zlib';
import { remoteStatusListLimits } from '../verification-limits.js';

export const statusPurposes = ['revocation', 'suspension'] as const;
export type StatusPurpose = (typeof statusPurposes)[number];

export const statusListContext = 'https://www.w3.org/ns/credentials/status/v1';

/** The smallest list the Bitstring Status List specification allows (§6.1, herd privacy). */
export const statusListLength = 131_072;

/** `u` + base64url (no padding) of the GZIP-compressed bitstring: a list's `encodedList` (§3.1). */
export function encodeList(bits: Uint8Array): string {
  return `u${gzipSync(bits).toString('base64url')}`;
}

/** The bits of an `encodedList`; a list that would inflate beyond `maxBytes` is refused. */
export function decodeList(
  encoded: string,
  maxBytes: number = remoteStatusListLimits.inflatedBytes,
): Buffer {
  if (!encoded.startsWith('u')) throw new Error('encodedList must be multibase base64url (u...)');
  return gunzipSync(Buffer.from(encoded.slice(1), 'base64url'), { maxOutputLength: maxBytes });
}

/** Index 0 is the most significant bit of the first byte (§2.1). */
export function bitAt(bits: Uint8Array, index: number): boolean {
  const byte = bits[Math.floor(index / 8)];
  if (byte === undefined) throw new RangeError(`index ${index} is outside the list`);
  return bitOfByte(byte, index);
}

/** The bit of entry `index` in the byte that holds it (`Math.floor(index / 8)`), in §2.1's order. */
export function bitOfByte(byte: number, index: number): boolean {
  return (byte & (0x80 >> (index % 8))) !== 0;
}

/** Which byte of a list holds an entry's bit: that of its `statusListIndex`, or 0 when that is no index. */
export function entryByteIndex(statusListIndex: unknown): number {
  const index = Number(statusListIndex);
  return Number.isInteger(index) && index >= 0 ? Math.floor(index / 8) : 0;
}

/**
 * An entry's bit, from the byte that holds it (`entryByteIndex`) of a list of `length` bytes (null past
 * its end), or why there is none: its `statusListIndex` is not a whole number inside the list.
 */
export function entryBit(
  list: { length: number; byte: number | null },
  statusListIndex: unknown,
): boolean | string {
  const index = Number(statusListIndex);
  if (!Number.isInteger(index) || index < 0 || index >= list.length * 8 || list.byte === null) {
    return `statusListIndex ${String(statusListIndex)} is outside the list`;
  }
  return bitOfByte(list.byte, index);
}
