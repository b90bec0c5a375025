import { StatusList } from '@sd-jwt/jwt-status-list';
import { inflateSync } from 'node:zlib';
import { bitAt } from './bitstring.js';
import {
  decodeLst,
  encodeLst,
  maxInflatedStatusListBytes,
  statusAt,
  tokenStatusListBytes,
} from './token-status-list.js';

/** A Bitstring Status List (most significant bit first) with the given indices set. */
function bitstring(length: number, set: number[]): Uint8Array {
  const bits = new Uint8Array(length / 8);
  for (const index of set) bits[Math.floor(index / 8)] |= 0x80 >> (index % 8);
  return bits;
}

describe('Token Status List encoding', () => {
  it("reproduces draft-ietf-oauth-status-list §4.1's 1-bit example: bytes B9 A3, lst eNrbuRgAAhcBXQ", () => {
    const invalid = [0, 3, 4, 5, 7, 8, 9, 13, 15];
    const bytes = tokenStatusListBytes(bitstring(16, invalid));
    expect(Buffer.from(bytes).toString('hex')).toBe('b9a3');
    expect(encodeLst(bytes)).toBe('eNrbuRgAAhcBXQ');
  });

  it('keeps every index: the library reads each status where the bitstring had its bit', () => {
    const set = [1, 6, 8, 100, 131_071];
    const bits = bitstring(131_072, set);
    const list = StatusList.decompressStatusList(encodeLst(tokenStatusListBytes(bits)), 1);
    for (const index of [0, 1, 2, 6, 7, 8, 9, 99, 100, 101, 131_070, 131_071]) {
      expect(list.getStatus(index)).toBe(bitAt(bits, index) ? 1 : 0);
      expect(list.getStatus(index)).toBe(set.includes(index) ? 1 : 0);
    }
  });

  it('decodes what it encodes, and 2-bit statuses as the draft lays them out', () => {
    const bits = bitstring(1024, [3, 700]);
    const bytes = decodeLst(encodeLst(tokenStatusListBytes(bits)));
    if (typeof bytes === 'string') throw new Error(bytes);
    expect([statusAt(bytes, 1, 3), statusAt(bytes, 1, 4), statusAt(bytes, 1, 700)]).toEqual([
      1, 0, 1,
    ]);
    // §4.1's 2-bit example: statuses 1, 2, 0, 3 in byte 0 are 0b11001001.
    const twoBits = Uint8Array.of(0b1100_1001);
    expect([0, 1, 2, 3].map((idx) => statusAt(twoBits, 2, idx))).toEqual([1, 2, 0, 3]);
    expect(statusAt(twoBits, 2, 4)).toMatch(/past the list's end/);
  });

  it('refuses an lst that is not base64url ZLIB, or inflates beyond the cap', () => {
    expect(decodeLst('not base64!')).toMatch(/not base64url/);
    expect(decodeLst('AAAA')).toMatch(/not a ZLIB stream/);
    const bomb = encodeLst(new Uint8Array(maxInflatedStatusListBytes + 1));
    expect(decodeLst(bomb)).toMatch(/not a ZLIB stream of at most/);
  });

  it('is a ZLIB stream of the same length as the bitstring', () => {
    const bits = bitstring(1024, [5]);
    const inflated = inflateSync(Buffer.from(encodeLst(tokenStatusListBytes(bits)), 'base64url'));
    expect(inflated.length).toBe(128);
    expect(inflated[0]).toBe(0b0010_0000);
  });
});
