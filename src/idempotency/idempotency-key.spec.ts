import { type IncomingMessage } from 'node:http';
import { canonicalJson, idempotencyKeyOf, requestFingerprint } from './idempotency-key.js';

const withHeader = (...values: string[]) =>
  ({
    headersDistinct: values.length === 0 ? {} : { 'idempotency-key': values },
  }) as unknown as IncomingMessage;

describe('idempotencyKeyOf', () => {
  it('takes a bare key and the quoted form of the IETF draft as the same key', () => {
    expect(idempotencyKeyOf(withHeader('8e03978e-40d5'))).toBe('8e03978e-40d5');
    expect(idempotencyKeyOf(withHeader('"8e03978e-40d5"'))).toBe('8e03978e-40d5');
    expect(idempotencyKeyOf(withHeader('"say \\"hi\\" \\\\ me"'))).toBe('say "hi" \\ me');
  });

  it('is undefined without the header, and refuses an empty, long, non-ASCII or repeated key', () => {
    expect(idempotencyKeyOf(withHeader())).toBeUndefined();
    for (const bad of [[''], ['""'], ['k'.repeat(256)], ['caf\u00e9'], ['a\u0000b'], ['a', 'b']]) {
      expect(() => idempotencyKeyOf(withHeader(...bad))).toThrow(
        expect.objectContaining({ code: 'IDEMPOTENCY_KEY_INVALID' }) as Error,
      );
    }
    expect(idempotencyKeyOf(withHeader('k'.repeat(255)))).toHaveLength(255);
  });
});

describe('requestFingerprint', () => {
  it('ignores member order, and tells apart a value moved between query and body', () => {
    const one = requestFingerprint({ query: {}, body: { a: 1, b: { c: [1, { d: 2, e: 3 }] } } });
    const same = requestFingerprint({ query: {}, body: { b: { c: [1, { e: 3, d: 2 }] }, a: 1 } });
    expect(same).toBe(one);
    expect(requestFingerprint({ query: { a: '1' }, body: undefined })).not.toBe(
      requestFingerprint({ query: {}, body: { a: '1' } }),
    );
    expect(canonicalJson({ b: [2, 1], a: null, c: undefined })).toBe('{"a":null,"b":[2,1]}');
  });
});
