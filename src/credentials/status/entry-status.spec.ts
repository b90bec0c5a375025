import { entryStatus } from './entry-status.js';

const entries = 131_072;
/** A list of `size`-bit entries where entry 3 holds `value`. */
function list(size: number, value: number, length = entries): Uint8Array {
  const bits = new Uint8Array((length * size) / 8);
  for (let bit = 0; bit < size; bit++) {
    if ((value >> (size - 1 - bit)) & 1) {
      const position = 3 * size + bit;
      bits[position >> 3] |= 0x80 >> (position & 7);
    }
  }
  return bits;
}
const messages = (size: number) =>
  Array.from({ length: 2 ** size }, (_, value) => ({
    status: `0x${value.toString(16)}`,
    message: `m${value}`,
  }));

describe('the status an entry holds (Bitstring Status List §2.1, §3.2)', () => {
  it('reads one bit by default, and statusSize bits when given', () => {
    expect(entryStatus({ statusListIndex: '3' }, list(1, 1))).toBe(1);
    expect(entryStatus({ statusListIndex: '4' }, list(1, 1))).toBe(0);
    expect(
      entryStatus({ statusListIndex: 3, statusSize: 2, statusMessage: messages(2) }, list(2, 2)),
    ).toBe(2);
    expect(
      entryStatus({ statusListIndex: 3, statusSize: 3, statusMessage: messages(3) }, list(3, 5)),
    ).toBe(5);
  });

  it.each([
    [
      'a size of 0',
      { statusSize: 0 },
      list(1, 0),
      /statusSize 0 is not a whole number from 1 to 8/,
    ],
    ['a fractional size', { statusSize: 1.5 }, list(1, 0), /not a whole number/],
    ['a size given as text', { statusSize: '2' }, list(2, 0), /not a whole number/],
    ['a size above 8', { statusSize: 9 }, list(1, 0), /from 1 to 8/],
    [
      'a size of 2 without messages',
      { statusSize: 2 },
      list(2, 0),
      /statusSize 2 but no statusMessage/,
    ],
    [
      'too few messages',
      { statusSize: 2, statusMessage: messages(1) },
      list(2, 0),
      /must list 4 messages/,
    ],
    [
      'a message without status',
      { statusMessage: [{ message: 'a' }, { message: 'b' }] },
      list(1, 0),
      /hexadecimal status/,
    ],
    [
      'a list too short for its size',
      { statusSize: 2, statusMessage: messages(2) },
      list(1, 0),
      /holds 65536 entries of 2 bits, fewer than the 131072/,
    ],
    ['an index past the end', { statusListIndex: String(entries) }, list(1, 0), /outside the list/],
    ['a negative index', { statusListIndex: '-1' }, list(1, 0), /outside the list/],
  ])('refuses %s', (_name, entry, bits, reason) => {
    expect(entryStatus({ statusListIndex: '3', ...entry }, bits)).toMatch(reason);
  });
});
