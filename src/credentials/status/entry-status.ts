import { statusListLength } from './bitstring.js';

type Json = Record<string, unknown>;

/** The widest status a verifier reads: 8 bits, 256 messages (the specification sets no bound). */
export const maxStatusSize = 8;

/**
 * The status an entry's bits hold in `bits` (Bitstring Status List §2.1, §3.2): `statusSize` bits
 * (1 unless given) at `statusListIndex` × `statusSize`, or why the entry or list cannot be read:
 * a size that is no whole number from 1 to maxStatusSize, a `statusMessage` missing (size above 1)
 * or not one message for each value, a list of fewer than the minimum entries of that size, an
 * index outside it.
 */
export function entryStatus(entry: Json, bits: Uint8Array): number | string {
  const size = entry.statusSize ?? 1;
  if (typeof size !== 'number' || !Number.isInteger(size) || size < 1 || size > maxStatusSize) {
    return `the entry's statusSize ${JSON.stringify(size)} is not a whole number from 1 to ${maxStatusSize}`;
  }
  const messagesProblem = statusMessageProblem(entry.statusMessage, size);
  if (messagesProblem !== undefined) return messagesProblem;
  const entries = Math.floor((bits.length * 8) / size);
  if (entries < statusListLength) {
    return `the list holds ${entries} entries of ${size} bits, fewer than the ${statusListLength} the specification requires`;
  }
  const index = Number(entry.statusListIndex);
  if (!Number.isInteger(index) || index < 0 || index >= entries) {
    return `statusListIndex ${String(entry.statusListIndex)} is outside the list`;
  }
  let value = 0;
  for (let bit = index * size; bit < (index + 1) * size; bit++) {
    value = (value << 1) | ((bits[bit >> 3] >> (7 - (bit & 7))) & 1);
  }
  return value;
}

/** §2.1: with a size above 1 a statusMessage is required; when present, one per possible value. */
function statusMessageProblem(messages: unknown, size: number): string | undefined {
  if (messages === undefined) {
    return size > 1 ? `the entry has statusSize ${size} but no statusMessage` : undefined;
  }
  const values = 2 ** size;
  if (!Array.isArray(messages) || messages.length !== values) {
    return `the entry's statusMessage must list ${values} messages, one for each value of its ${size} bits`;
  }
  const wellFormed = messages.every(
    (message) =>
      typeof message === 'object' &&
      message !== null &&
      typeof (message as Json).status === 'string' &&
      /^0x[0-9a-fA-F]{1,2}$/.test((message as Json).status as string) &&
      typeof (message as Json).message === 'string',
  );
  return wellFormed
    ? undefined
    : "each of the entry's statusMessage items must have a hexadecimal status ('0x1') and a message";
}
