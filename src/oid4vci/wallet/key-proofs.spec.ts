import { p256 } from '@noble/curves/nist.js';
import { base58 } from '@scure/base';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { keyOfDidUrl, ProofRefusal, verifyDpopProof, verifyKeyProof } from './key-proofs.js';

const issuer = 'https://agent.example/ctrl/oid4vci/acme';
const now = Date.UTC(2026, 0, 1);
const seconds = Math.floor(now / 1000);

/** A P-256 did:key (`zDn…`): the multicodec p256-pub and the compressed point. */
function p256DidKey(x: string, y: string): string {
  const point = p256.Point.fromAffine({
    x: BigInt(`0x${Buffer.from(x, 'base64url').toString('hex')}`),
    y: BigInt(`0x${Buffer.from(y, 'base64url').toString('hex')}`),
  }).toBytes(true);
  return `did:key:z${base58.encode(Uint8Array.of(0x80, 0x24, ...point))}`;
}

describe('key proofs', () => {
  it('resolves a P-256 did:key URL to the JWK it carries, and verifies a proof named by it', async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    const jwk = await exportJWK(publicKey);
    const did = p256DidKey(jwk.x!, jwk.y!);
    const kid = `${did}#${did.slice('did:key:'.length)}`;
    expect(keyOfDidUrl(kid, 'ES256')).toEqual({
      jwk: { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y },
      did,
    });
    const proof = await new SignJWT({ aud: issuer, iat: seconds, nonce: 'n' })
      .setProtectedHeader({ alg: 'ES256', typ: 'openid4vci-proof+jwt', kid })
      .sign(privateKey);
    expect(verifyKeyProof(proof, { issuer, now, didAllowed: true })).toMatchObject({
      did,
      nonce: 'n',
    });
    // The same key named for EdDSA, or without its fragment, is not it.
    expect(() => keyOfDidUrl(kid, 'EdDSA')).toThrow(ProofRefusal);
    expect(() => keyOfDidUrl(did, 'ES256')).toThrow(ProofRefusal);
  });

  it('refuses a proof signed with HS256 or without a signature', async () => {
    const secret = new Uint8Array(32);
    const hs = await new SignJWT({ aud: issuer, iat: seconds, nonce: 'n' })
      .setProtectedHeader({ alg: 'HS256', typ: 'openid4vci-proof+jwt', jwk: { kty: 'oct' } })
      .sign(secret);
    expect(() => verifyKeyProof(hs, { issuer, now, didAllowed: true })).toThrow(
      /must be signed with ES256 or EdDSA/,
    );
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    const jwk = await exportJWK(publicKey);
    const signed = await new SignJWT({ aud: issuer, iat: seconds, nonce: 'n' })
      .setProtectedHeader({ alg: 'ES256', typ: 'openid4vci-proof+jwt', jwk })
      .sign(privateKey);
    const stripped = `${signed.split('.').slice(0, 2).join('.')}.`;
    expect(() => verifyKeyProof(stripped, { issuer, now, didAllowed: true })).toThrow(/signature/);
  });

  it('answers the DPoP key thumbprint, and refuses a proof without jti', async () => {
    const { privateKey, publicKey } = await generateKeyPair('EdDSA');
    const jwk = await exportJWK(publicKey);
    const proof = (payload: Record<string, unknown>) =>
      new SignJWT({ htm: 'POST', htu: `${issuer}/token`, iat: seconds, ...payload })
        .setProtectedHeader({ alg: 'EdDSA', typ: 'dpop+jwt', jwk })
        .sign(privateKey);
    const expected = { method: 'POST', url: `${issuer}/token`, now };
    const verified = verifyDpopProof(await proof({ jti: 'a' }), expected);
    expect(verified.jkt).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(verified.jti).toBe('a');
    const withoutJti = await proof({});
    expect(() => verifyDpopProof(withoutJti, expected)).toThrow(/jti/);
  });
});
