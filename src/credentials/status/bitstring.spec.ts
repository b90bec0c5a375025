import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { bitAt, decodeList, encodeList, statusListLength } from './bitstring.js';

const examples = join(
  process.cwd(),
  'test/vectors/bitstring-status-list/extracted-from-index.html',
);

describe('Bitstring Status List encoding', () => {
  it("decodes the specification's example list: 131,072 bits, all clear", () => {
    const example = JSON.parse(
      readFileSync(join(examples, 'example-BitstringStatusListCredential.json'), 'utf8'),
    ) as { credentialSubject: { encodedList: string } };
    const bits = decodeList(example.credentialSubject.encodedList);
    expect(bits.length * 8).toBe(statusListLength);
    expect(bits.every((byte) => byte === 0)).toBe(true);
  });

  it('round-trips, with index 0 the first byte’s most significant bit', () => {
    const bits = Buffer.alloc(statusListLength / 8);
    bits[0] = 0b1000_0000;
    bits[1] = 0b0000_0001;
    const decoded = decodeList(encodeList(bits));
    expect(decoded.equals(bits)).toBe(true);
    expect([0, 1, 7, 8, 15].map((index) => bitAt(decoded, index))).toEqual([
      true,
      false,
      false,
      false,
      true,
    ]);
  });
});
