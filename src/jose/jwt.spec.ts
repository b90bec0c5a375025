import { exportJWK, generateKeyPair, SignJWT, type JWTPayload } from 'jose';
import { publicJwkOf } from './jwk.js';
import { JwtRefusal, verifiedJwt, type JwtExpectation } from './jwt.js';

const now = Date.UTC(2026, 10, 29, 12);
const seconds = now / 1000;

/** JWTs signed by jose, an independent library, and what verifiedJwt answers or refuses for them. */
async function signer(alg: 'ES256' | 'EdDSA') {
  const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true });
  const jwk = publicJwkOf(await exportJWK(publicKey));
  if (typeof jwk === 'string') throw new Error(jwk);
  const jwt = (claims: JWTPayload) =>
    new SignJWT(claims).setProtectedHeader({ alg, typ: 'test+jwt' }).sign(privateKey);
  const outcome = async (claims: JWTPayload, expected: Partial<JwtExpectation> = {}) => {
    try {
      return verifiedJwt(await jwt(claims), jwk, alg, { now, toleranceSeconds: 60, ...expected });
    } catch (error) {
      if (!(error instanceof JwtRefusal)) throw error;
      return `${error.reason}${error.claim === undefined ? '' : ` ${error.claim}`}`;
    }
  };
  return { jwk, jwt, outcome };
}

describe('JWT verification', () => {
  it('answers the claims of a JWT signed with the key, for ES256 and EdDSA', async () => {
    for (const alg of ['ES256', 'EdDSA'] as const) {
      const { outcome } = await signer(alg);
      expect(await outcome({ iat: seconds, n: 1 })).toEqual({ iat: seconds, n: 1 });
    }
  });

  it('refuses a signature by another key, and what is not a JWS', async () => {
    const { jwt } = await signer('ES256');
    const other = await signer('ES256');
    expect(() => verifiedJwt('a.b.c', other.jwk, 'ES256', { now, toleranceSeconds: 60 })).toThrow(
      new JwtRefusal('signature'),
    );
    const token = await jwt({ iat: seconds });
    expect(() => verifiedJwt(token, other.jwk, 'ES256', { now, toleranceSeconds: 60 })).toThrow(
      new JwtRefusal('signature'),
    );
  });

  it('checks exp and nbf within the allowance, and that time claims are numbers', async () => {
    const { outcome } = await signer('ES256');
    expect(await outcome({ exp: seconds - 59 })).toEqual({ exp: seconds - 59 });
    expect(await outcome({ exp: seconds - 60 })).toBe('expired exp');
    expect(await outcome({ nbf: seconds + 60 })).toEqual({ nbf: seconds + 60 });
    expect(await outcome({ nbf: seconds + 61 })).toBe('claim nbf');
    for (const claim of ['iat', 'nbf', 'exp'])
      expect(await outcome({ [claim]: String(seconds) })).toBe(`claim ${claim}`);
  });

  it('checks the audience, as a string or in an array, and the claims required', async () => {
    const { outcome } = await signer('EdDSA');
    const audience = 'https://issuer.example';
    expect(await outcome({ aud: audience }, { audience })).toEqual({ aud: audience });
    expect(await outcome({ aud: ['a', audience] }, { audience })).toEqual({ aud: ['a', audience] });
    expect(await outcome({ aud: 'https://other.example' }, { audience })).toBe('claim aud');
    expect(await outcome({}, { audience })).toBe('claim aud');
    expect(await outcome({ jti: 'j' }, { requiredClaims: ['jti', 'iat'] })).toBe('claim iat');
  });
});
