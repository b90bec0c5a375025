import { calculateJwkThumbprint, exportJWK, generateKeyPair } from 'jose';
import { didJwkOf } from './did-keys.js';
import { algorithmOf, jwkThumbprint, publicJwkFor, publicJwkOf } from './jwk.js';

describe('public JWKs', () => {
  const ec = { kty: 'EC', crv: 'P-256', x: 'x-coordinate', y: 'y-coordinate' } as const;
  const okp = { kty: 'OKP', crv: 'Ed25519', x: 'x-coordinate' } as const;

  it('keeps only the public members of a P-256 or Ed25519 key', () => {
    expect(publicJwkOf({ ...ec, kid: 'k1', alg: 'ES256', use: 'sig' })).toEqual(ec);
    expect(publicJwkOf({ ...okp, kid: 'k2' })).toEqual(okp);
    expect(algorithmOf(ec)).toBe('ES256');
    expect(algorithmOf(okp)).toBe('EdDSA');
  });

  it('refuses a key with private members, a non-object, and another key type or curve', () => {
    for (const member of ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k']) {
      expect(publicJwkOf({ ...ec, [member]: 'secret' })).toBe('private-members');
    }
    for (const value of [null, 'jwk', 7, [ec]]) expect(publicJwkOf(value)).toBe('not-an-object');
    expect(publicJwkOf({ ...ec, crv: 'P-384' })).toBe('wrong-key');
    expect(publicJwkOf({ ...okp, y: 'y' })).toBe('wrong-key');
    expect(publicJwkOf({ ...ec, x: 'x'.repeat(65) })).toBe('wrong-key');
    expect(publicJwkOf({ kty: 'oct' })).toBe('wrong-key');
  });

  it('checks the key type against the algorithm (EdDSA and Ed25519 name one key type)', () => {
    expect(publicJwkFor(ec, 'ES256')).toEqual(ec);
    expect(publicJwkFor(okp, 'EdDSA')).toEqual(okp);
    expect(publicJwkFor(okp, 'Ed25519')).toEqual(okp);
    expect(publicJwkFor(okp, 'ES256')).toBe('wrong-key');
    expect(publicJwkFor(ec, 'EdDSA')).toBe('wrong-key');
  });

  // RFC 7638 §3.1: the example RSA key and its published thumbprint.
  it('computes the RFC 7638 thumbprint of the RFC’s example key', () => {
    const n =
      '0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw';
    expect(jwkThumbprint({ kty: 'RSA', n, e: 'AQAB' })).toBe(
      'NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs',
    );
  });

  it('computes the same thumbprint as the jose library for P-256 and Ed25519 keys', async () => {
    for (const alg of ['ES256', 'EdDSA'] as const) {
      const { publicKey } = await generateKeyPair(alg, { extractable: true });
      const exported = { ...(await exportJWK(publicKey)), kid: 'ignored', use: 'sig' };
      const jwk = publicJwkOf(exported);
      if (typeof jwk === 'string') throw new Error(jwk);
      expect(jwkThumbprint(jwk)).toBe(await calculateJwkThumbprint(exported, 'sha256'));
    }
  });

  it('derives did:jwk from the public JWK (did:jwk §2), members sorted, private ones dropped', () => {
    const did = didJwkOf({ y: ec.y, x: ec.x, kty: 'EC', crv: 'P-256', d: 'secret' });
    expect(did).toBe(
      `did:jwk:${Buffer.from('{"crv":"P-256","kty":"EC","x":"x-coordinate","y":"y-coordinate"}').toString('base64url')}`,
    );
  });
});
