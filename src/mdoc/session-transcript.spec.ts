import { encode } from 'cbor-x';
import { createHash } from 'node:crypto';
import { dcApiSessionTranscript, oid4vpSessionTranscript } from './session-transcript.js';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest();

/** The transcripts against CBOR written from OpenID4VP 1.0 appendix B.2.6 by hand, not by the library. */
describe('session transcripts', () => {
  const thumbprint = new Uint8Array(sha256(Buffer.from('key')));

  it('builds the OpenID4VPHandover transcript of B.2.6.1, with and without a thumbprint', async () => {
    for (const jwkThumbprint of [thumbprint, null]) {
      // A bstr: cbor-x would tag a Uint8Array (RFC 8746), so the hand-written CBOR takes a Buffer.
      const bstr = jwkThumbprint === null ? null : Buffer.from(jwkThumbprint);
      const info = ['x509_san_dns:rp.example', 'nonce-1', bstr, 'https://rp.example/post'];
      const expected = encode([null, null, ['OpenID4VPHandover', sha256(encode(info))]]);
      const actual = await oid4vpSessionTranscript({
        clientId: 'x509_san_dns:rp.example',
        nonce: 'nonce-1',
        jwkThumbprint,
        responseUri: 'https://rp.example/post',
      });
      expect(Buffer.from(actual).toString('hex')).toBe(Buffer.from(expected).toString('hex'));
    }
  });

  it('builds the OpenID4VPDCAPIHandover transcript of B.2.6.2', async () => {
    const info = ['https://rp.example', 'nonce-2', null];
    const expected = encode([null, null, ['OpenID4VPDCAPIHandover', sha256(encode(info))]]);
    const actual = await dcApiSessionTranscript({
      origin: 'https://rp.example',
      nonce: 'nonce-2',
      jwkThumbprint: null,
    });
    expect(Buffer.from(actual).toString('hex')).toBe(Buffer.from(expected).toString('hex'));
  });

  it('differs with the nonce, the client id and the origin', async () => {
    const base = { clientId: 'a', nonce: 'n', jwkThumbprint: null, responseUri: 'https://r' };
    const one = await oid4vpSessionTranscript(base);
    expect(await oid4vpSessionTranscript({ ...base, nonce: 'm' })).not.toEqual(one);
    expect(await oid4vpSessionTranscript({ ...base, clientId: 'b' })).not.toEqual(one);
    const origin = await dcApiSessionTranscript({
      origin: 'https://a',
      nonce: 'n',
      jwkThumbprint: null,
    });
    expect(
      await dcApiSessionTranscript({ origin: 'https://b', nonce: 'n', jwkThumbprint: null }),
    ).not.toEqual(origin);
  });
});
