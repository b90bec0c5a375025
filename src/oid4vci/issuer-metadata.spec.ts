import { decodeProtectedHeader, exportJWK, generateKeyPair, jwtVerify } from 'jose';
import { sign } from 'node:crypto';
import { type JoseSigningKey } from '../jose/algorithms.js';
import { signedMetadata, signedMetadataLifetimeSeconds } from './issuer-metadata.js';
import { type Response } from 'express';
import { answerMetadata, prefersJwt } from './metadata-negotiation.js';

const issuer = 'https://agent.example/ctrl/oid4vci/acme';

async function certifiedKey() {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const privateJwk = await exportJWK(privateKey);
  const key: JoseSigningKey = {
    kid: 'es256-kid',
    alg: 'ES256',
    x5c: ['bGVhZg==', 'aW50ZXJtZWRpYXRl'],
    sign: (data) =>
      Promise.resolve(
        new Uint8Array(
          sign('sha256', data, { key: privateJwk, format: 'jwk', dsaEncoding: 'ieee-p1363' }),
        ),
      ),
  };
  return { key, publicKey };
}

describe('signed metadata (OpenID4VCI 1.0 §12.2.3)', () => {
  it('signs the parameters with iss, sub, iat and exp, x5c in the header, never itself', async () => {
    const { key, publicKey } = await certifiedKey();
    const metadata = {
      credential_issuer: issuer,
      credential_endpoint: `${issuer}/credential`,
      signed_metadata: 'an older one',
    };
    const jwt = await signedMetadata(metadata, 1_800_000_000, key);
    const { payload } = await jwtVerify(jwt, publicKey, {
      typ: 'openidvci-issuer-metadata+jwt',
      algorithms: ['ES256'],
      currentDate: new Date(1_800_000_000_000),
    });
    expect(payload).toEqual({
      credential_issuer: issuer,
      credential_endpoint: `${issuer}/credential`,
      iss: issuer,
      sub: issuer,
      iat: 1_800_000_000,
      exp: 1_800_000_000 + signedMetadataLifetimeSeconds,
    });
    expect(decodeProtectedHeader(jwt)).toEqual({
      typ: 'openidvci-issuer-metadata+jwt',
      alg: 'ES256',
      kid: 'es256-kid',
      x5c: ['bGVhZg==', 'aW50ZXJtZWRpYXRl'],
    });
  });
});

describe('which form of the metadata a wallet asked for', () => {
  it.each([
    ['application/jwt', true],
    ['application/jwt, application/json', true],
    ['application/json;q=0.5, application/jwt', true],
    ['Application/JWT', true],
    [undefined, false],
    ['application/json', false],
    ['*/*', false],
    ['application/jwt;q=0, application/json', false],
    ['application/jwt;q=0.4, application/json', false],
    ['application/jwt;q=abc', false],
    [`application/jwt, ${'x'.repeat(1_100)}`, false],
  ])('Accept: %s -> the JWT: %s', (accept, jwt) => {
    expect(prefersJwt(accept)).toBe(jwt);
  });
});

describe('the metadata answered', () => {
  const fakeResponse = () => {
    const seen: { headers: Record<string, string>; type?: string } = { headers: {} };
    const response = {
      setHeader: (name: string, value: string) => (seen.headers[name] = value),
      type: (type: string) => (seen.type = type),
    } as unknown as Response;
    return { response, seen };
  };
  const metadata = { credential_issuer: issuer, signed_metadata: 'a.b.c' };

  it('is the JWT as application/jwt when the wallet prefers it and there is one', () => {
    const { response, seen } = fakeResponse();
    expect(answerMetadata({ metadata, signed: 'a.b.c' }, 'application/jwt', response)).toBe(
      'a.b.c',
    );
    expect(seen).toEqual({ headers: { Vary: 'Accept' }, type: 'application/jwt' });
  });

  it('is the JSON without a certificate, whatever the wallet accepts, and for a wallet of JSON', () => {
    const unsigned = { credential_issuer: issuer };
    const { response, seen } = fakeResponse();
    expect(
      answerMetadata({ metadata: unsigned, signed: undefined }, 'application/jwt', response),
    ).toBe(unsigned);
    expect(answerMetadata({ metadata, signed: 'a.b.c' }, undefined, response)).toBe(metadata);
    expect(seen).toEqual({ headers: { Vary: 'Accept' } });
  });
});
