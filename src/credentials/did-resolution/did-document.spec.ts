import { checkedDidDocument, dereferenceMethod, keyTypeProblem } from './did-document.js';

const did = 'did:web:example.com';
const multikey = { type: 'Multikey', controller: did, publicKeyMultibase: `z6Mk${'a'.repeat(44)}` };

describe('did:web documents, made whole or refused', () => {
  it('makes relative ids absolute and lists embedded methods', () => {
    const document = checkedDidDocument(
      {
        id: did,
        verificationMethod: [{ id: '#key-1', ...multikey }],
        assertionMethod: ['#key-1'],
        authentication: [{ id: `${did}#key-2`, ...multikey }],
      },
      did,
    );
    expect(document).toMatchObject({
      verificationMethod: [{ id: `${did}#key-1` }, { id: `${did}#key-2` }],
      assertionMethod: [`${did}#key-1`],
      authentication: [`${did}#key-2`],
    });
    if (typeof document === 'string') throw new Error(document);
    expect(dereferenceMethod(document, `${did}#key-2`)).toMatchObject({ type: 'Multikey' });
    expect(dereferenceMethod(document, `${did}#key-3`)).toMatch(/no such verification method/);
  });

  it.each([
    ['another id', { id: 'did:web:other.example' }, /id is "did:web:other.example", not the DID/],
    [
      'a key another DID controls',
      { id: did, verificationMethod: [{ id: '#k', ...multikey, controller: 'did:web:x.example' }] },
      /is not one of the DID's own/,
    ],
    [
      "a key of another DID's id",
      { id: did, verificationMethod: [{ ...multikey, id: 'did:web:x.example#k' }] },
      /is not one of the DID's own/,
    ],
    ['a relationship that is no array', { id: did, assertionMethod: '#k' }, /is not an array/],
    [
      'too many values',
      { id: did, padding: Array.from({ length: 1_001 }, () => 0) },
      /more than 1000 JSON values/,
    ],
    ['no object', ['x'], /not a JSON object/],
  ])('refuses a document with %s', (_name, document, reason) => {
    expect(checkedDidDocument(document, did)).toMatch(reason);
  });
});

describe('key types verification uses', () => {
  const method = (extra: { type: string } & Record<string, unknown>) => ({
    id: `${did}#k`,
    controller: did,
    ...extra,
  });

  it.each([
    ['an Ed25519 Multikey', { type: 'Multikey', publicKeyMultibase: 'z6MkExample' }],
    ['a P-256 Multikey', { type: 'Multikey', publicKeyMultibase: 'zDnaExample' }],
    [
      'an Ed25519VerificationKey2020',
      { type: 'Ed25519VerificationKey2020', publicKeyMultibase: 'z6MkExample' },
    ],
    [
      'a P-256 JsonWebKey',
      { type: 'JsonWebKey', publicKeyJwk: { kty: 'EC', crv: 'P-256', x: 'a', y: 'b' } },
    ],
    [
      'an Ed25519 JsonWebKey2020',
      { type: 'JsonWebKey2020', publicKeyJwk: { kty: 'OKP', crv: 'Ed25519', x: 'a' } },
    ],
  ])('takes %s', (_name, key) => {
    expect(keyTypeProblem(method(key))).toBeUndefined();
  });

  it.each([
    ['a P-384 Multikey', { type: 'Multikey', publicKeyMultibase: 'z82LkExample' }],
    [
      'a secp256k1 JsonWebKey',
      { type: 'JsonWebKey', publicKeyJwk: { kty: 'EC', crv: 'secp256k1', x: 'a', y: 'b' } },
    ],
    [
      'a JWK with its private key',
      { type: 'JsonWebKey', publicKeyJwk: { kty: 'OKP', crv: 'Ed25519', x: 'a', d: 'b' } },
    ],
    ['an RSA key', { type: 'JsonWebKey2020', publicKeyJwk: { kty: 'RSA', n: 'a', e: 'AQAB' } }],
    [
      'a P-256 Ed25519VerificationKey2020',
      { type: 'Ed25519VerificationKey2020', publicKeyMultibase: 'zDnaExample' },
    ],
    [
      'an EcdsaSecp256k1VerificationKey2019',
      { type: 'EcdsaSecp256k1VerificationKey2019', publicKeyMultibase: 'zQ3s' },
    ],
  ])('refuses %s', (_name, key) => {
    expect(keyTypeProblem(method(key))).toMatch(
      /not an Ed25519 or P-256 key this service verifies with/,
    );
  });
});
