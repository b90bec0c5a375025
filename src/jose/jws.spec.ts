import { CompactSign, exportJWK, generateKeyPair } from 'jose';
import { generateKeyPairSync } from 'node:crypto';
import { importedPublicKey, jwsVerifies, maxImportedPublicKeys } from './jws.js';
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
      expect(await jwsVerifies(jws, signer.jwk, alg)).toBe(true);
      expect(await jwsVerifies(jws, { ...signer.jwk }, alg)).toBe(true);
      expect(await jwsVerifies(jws, other.jwk, alg)).toBe(false);
      expect(await jwsVerifies(withFlippedSignatureBit(jws), signer.jwk, alg)).toBe(false);
      // Only the algorithm asked for.
      expect(await jwsVerifies(jws, signer.jwk, alg === 'ES256' ? 'EdDSA' : 'ES256')).toBe(false);
    }
  });

  it('imports a public key once per key and algorithm, whatever object carries it', async () => {
    const { jwk } = await keyPair('ES256');
    const first = await importedPublicKey(jwk, 'ES256');
    expect(await importedPublicKey({ ...jwk }, 'ES256')).toBe(first);
    const okp = ed25519Jwk();
    const eddsa = await importedPublicKey(okp, 'EdDSA');
    expect(await importedPublicKey({ ...okp }, 'EdDSA')).toBe(eddsa);
    expect(await importedPublicKey(okp, 'Ed25519')).not.toBe(eddsa);
  });

  it('refuses a point off the curve, keeping nothing', async () => {
    const { jwk } = await keyPair('ES256');
    if (jwk.kty !== 'EC') throw new Error('not an EC key');
    const off = { ...jwk, y: jwk.x };
    await expect(importedPublicKey(off, 'ES256')).rejects.toThrow();
    await expect(importedPublicKey(off, 'ES256')).rejects.toThrow();
    const jws = await (await keyPair('ES256')).jws('{}');
    expect(await jwsVerifies(jws, off, 'ES256')).toBe(false);
  });

  it(`keeps at most ${maxImportedPublicKeys} keys, importing the least recently used again`, async () => {
    const first = ed25519Jwk();
    const kept = await importedPublicKey(first, 'EdDSA');
    for (let i = 0; i < maxImportedPublicKeys; i += 1)
      await importedPublicKey(ed25519Jwk(), 'EdDSA');
    const again = await importedPublicKey(first, 'EdDSA');
    expect(again).not.toBe(kept);
    expect(await importedPublicKey(first, 'EdDSA')).toBe(again);
  });
});
