import { didJwkDocument } from './did-jwk.js';

const didOf = (jwk: object) => `did:jwk:${Buffer.from(JSON.stringify(jwk)).toString('base64url')}`;
const p256 = {
  kty: 'EC',
  crv: 'P-256',
  x: 'acbIQiuMs3i8_uszEjJ2tpTtRM4EU3yz91PH6CdH2V0',
  y: '_KcyLj9vWMptnmKtm46GqDz8wf74I5LKgrl2GzH3nSE',
};

describe('did:jwk documents (did:jwk specification, Read)', () => {
  it('lists the key as #0 for every signing relationship and key agreement', () => {
    const did = didOf(p256);
    const id = `${did}#0`;
    expect(didJwkDocument(did)).toEqual({
      '@context': ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/suites/jws-2020/v1'],
      id: did,
      verificationMethod: [{ id, type: 'JsonWebKey2020', controller: did, publicKeyJwk: p256 }],
      assertionMethod: [id],
      authentication: [id],
      capabilityInvocation: [id],
      capabilityDelegation: [id],
      keyAgreement: [id],
    });
  });

  it('lists a `use: enc` key for key agreement only, a `use: sig` key for signing only', () => {
    const encrypting = didJwkDocument(didOf({ ...p256, use: 'enc' })) as Record<string, unknown>;
    expect(encrypting.keyAgreement).toHaveLength(1);
    expect(encrypting.assertionMethod).toBeUndefined();
    expect(encrypting.authentication).toBeUndefined();
    const signing = didJwkDocument(didOf({ ...p256, use: 'sig' })) as Record<string, unknown>;
    expect(signing.keyAgreement).toBeUndefined();
    expect(signing.assertionMethod).toHaveLength(1);
  });

  it.each([
    ['a private key', didOf({ ...p256, d: 'secret' }), /holds a private key/],
    ['no JSON', `did:jwk:${Buffer.from('not json').toString('base64url')}`, /not the base64url/],
    ['a JSON array', didOf([1, 2]), /not the base64url of a JSON object/],
    ['padding', `${didOf(p256)}=`, /base64url JWK/],
    ['a huge identifier', `did:jwk:${'A'.repeat(600)}`, /at most 512 characters/],
  ])('refuses %s', (_name, did, reason) => {
    expect(didJwkDocument(did)).toMatch(reason);
  });
});
