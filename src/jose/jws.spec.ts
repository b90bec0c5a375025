import { CompactSign, exportJWK, generateKeyPair } from 'jose';
import { generateKeyPairSync } from 'node:crypto';
import { jwsVerifies, maxPublicKeys, publicKeyObject } from './jws.js';
import { publicJwkOf, type PublicJwk } from './jwk.js';
import { withFlippedSignatureBit } from '../../test/support/tampered.js';

/** A key pair by jose, an independent library, with its public JWK reduced to its public members. */
async function keyPair(alg: 'ES256' | 'EdDSA') {
  const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true });
  const jwk = publicJwkOf(await exportJWK(publicKey));
  if (typeof jwk === 'string') throw new Error(jwk);
  const jws = (payload: string) =>
    new CompactSign(new TextEncoder().encode(payload)).setProtectedHeader({ alg }).sign(privateKey);
  return { jwk, jws };
}

const ed25519Jwk = (): PublicJwk => {
  const x = generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }).x!;
  return { kty: 'OKP', crv: 'Ed25519', x };
};

describe('JWS verification', () => {
  it("verifies jose's signatures under the signer's key only, and the same key again", async () => {
    for (const alg of ['ES256', 'EdDSA'] as const) {
      const signer = await keyPair(alg);
      const other = await keyPair(alg);
      const jws = await signer.jws('{"n":1}');
      expect(jwsVerifies(jws, signer.jwk, alg)).toBe(true);
      expect(jwsVerifies(jws, { ...signer.jwk }, alg)).toBe(true);
      expect(jwsVerifies(jws, other.jwk, alg)).toBe(false);
      expect(jwsVerifies(withFlippedSignatureBit(jws), signer.jwk, alg)).toBe(false);
      // Only the algorithm asked for.
      expect(jwsVerifies(jws, signer.jwk, alg === 'ES256' ? 'EdDSA' : 'ES256')).toBe(false);
    }
  });

  it('makes a key object once per key, whatever object carries it', () => {
    const jwk = publicJwkOf(
      generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ format: 'jwk' }),
    );
    if (typeof jwk === 'string') throw new Error(jwk);
    const first = publicKeyObject(jwk);
    expect(publicKeyObject({ ...jwk })).toBe(first);
    const okp = ed25519Jwk();
    const eddsa = publicKeyObject(okp);
    expect(publicKeyObject({ ...okp })).toBe(eddsa);
    expect(eddsa).not.toBe(first);
  });

  it('refuses a point off the curve, keeping nothing', async () => {
    const { jwk } = await keyPair('ES256');
    if (jwk.kty !== 'EC') throw new Error('not an EC key');
    const off = { ...jwk, y: jwk.x };
    expect(() => publicKeyObject(off)).toThrow();
    expect(() => publicKeyObject(off)).toThrow();
    const jws = await (await keyPair('ES256')).jws('{}');
    expect(jwsVerifies(jws, off, 'ES256')).toBe(false);
  });

  it('refuses what its header does not allow or its form does not hold', async () => {
    const signer = await keyPair('ES256');
    const jws = await signer.jws('{"n":1}');
    const [header, payload, signature] = jws.split('.');
    const reheaded = (value: Record<string, unknown>) =>
      `${Buffer.from(JSON.stringify(value)).toString('base64url')}.${payload}.${signature}`;
    // A header naming another algorithm, or an extension it must understand, is not signed as asked.
    expect(jwsVerifies(reheaded({ alg: 'ES384' }), signer.jwk, 'ES256')).toBe(false);
    // An algorithm outside the table, passed as a header gave it, verifies nothing.
    expect(jwsVerifies(reheaded({ alg: 'ES384' }), signer.jwk, 'ES384' as 'ES256')).toBe(false);
    expect(
      jwsVerifies(reheaded({ alg: 'ES256', crit: ['b64'], b64: false }), signer.jwk, 'ES256'),
    ).toBe(false);
    // A DER signature, a short one, a payload that is not JSON, characters outside base64url.
    const der = Buffer.concat([Buffer.from([0x30, 0x44]), Buffer.from(signature, 'base64url')]);
    expect(
      jwsVerifies(`${header}.${payload}.${der.toString('base64url')}`, signer.jwk, 'ES256'),
    ).toBe(false);
    expect(jwsVerifies(`${header}.${payload}.${signature.slice(0, 40)}`, signer.jwk, 'ES256')).toBe(
      false,
    );
    expect(jwsVerifies(`${header}.${payload}+.${signature}`, signer.jwk, 'ES256')).toBe(false);
    // The key must be the algorithm's: an Ed25519 key for ES256 is refused before anything is verified.
    expect(jwsVerifies(jws, ed25519Jwk(), 'ES256')).toBe(false);
  });

  it('verifies the ES256 example of RFC 7515 §A.3, and nothing altered', () => {
    const jwk: PublicJwk = {
      kty: 'EC',
      crv: 'P-256',
      x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU',
      y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0',
    };
    const jws =
      'eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ.DtEhU3ljbEg8L38VWAfUAqOyKAM6-Xx-F4GawxaepmXFCgfTjDxw5djxLa8ISlSApmWQxfKTUJqPP3-Kg6NU1Q';
    expect(jwsVerifies(jws, jwk, 'ES256')).toBe(true);
    expect(jwsVerifies(withFlippedSignatureBit(jws), jwk, 'ES256')).toBe(false);
  });

  it(`keeps at most ${maxPublicKeys} keys, making the least recently used again`, () => {
    const first = ed25519Jwk();
    const kept = publicKeyObject(first);
    for (let i = 0; i < maxPublicKeys; i += 1) publicKeyObject(ed25519Jwk());
    const again = publicKeyObject(first);
    expect(again).not.toBe(kept);
    expect(publicKeyObject(first)).toBe(again);
  });
});
