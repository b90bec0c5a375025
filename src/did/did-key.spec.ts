import { base58 } from '@scure/base';
import { createPrivateKey, createPublicKey, generateKeyPairSync } from 'node:crypto';
import {
  ed25519DidDocument,
  ed25519DidKey,
  ed25519MultikeyDidDocument,
  p256MultikeyDidDocument,
} from './did-key.js';
import { p256PublicKeyOfDidKey } from '../jose/did-keys.js';
import { independentResolver } from '../../test/support/independent-did-resolver.js';

/**
 * The Ed25519 vectors published with the did:key method (w3c-ccg/did-method-key,
 * test-vectors/ed25519-x25519.json): the seed, the DID, the base58 raw public key, and the X25519 key
 * agreement key derived from it, as multibase and as base58 raw key.
 */
const publishedVectors = [
  {
    seed: '0000000000000000000000000000000000000000000000000000000000000000',
    did: 'did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp',
    publicKeyBase58: '4zvwRjXUKGfvwnParsHAS3HuSVzV5cA4McphgmoCtajS',
    keyAgreementMultibase: 'z6LShs9GGnqk85isEBzzshkuVWrVKsRp24GnDuHk8QWkARMW',
    keyAgreementBase58: '7By6kV2t2d188odEM4ExAve1UithKT6dLva4dwsDT3ak',
  },
  {
    seed: '0000000000000000000000000000000000000000000000000000000000000001',
    did: 'did:key:z6MkjchhfUsD6mmvni8mCdXHw216Xrm9bQe2mBH1P5RDjVJG',
    publicKeyBase58: '6ASf5EcmmEHTgDJ4X4ZT5vT6iHVJBXPg5AN5YoTCpGWt',
    keyAgreementMultibase: 'z6LSrHyXiPBhUbvPUtyUCdf32sniiMGPTAesgHrtEa4FePtr',
    keyAgreementBase58: 'FcoNC5NqP9CePWbhfz95iHaEsCjGkZUioK9Ck7Qiw286',
  },
  {
    seed: '0000000000000000000000000000000000000000000000000000000000000002',
    did: 'did:key:z6MknGc3ocHs3zdPiJbnaaqDi58NGb4pk1Sp9WxWufuXSdxf',
    publicKeyBase58: '8pM1DN3RiT8vbom5u1sNryaNT1nyL8CTTW3b5PwWXRBH',
    keyAgreementMultibase: 'z6LSkkqoZRC34AEpbkhZCqLDcHQVAxuLpQ7kC8XCXMVUfvjE',
    keyAgreementBase58: 'A5fe37PAxhX5WNKngBpGHhC1KpNE7nwbK9oX2tqwxYxU',
  },
  {
    seed: '0000000000000000000000000000000000000000000000000000000000000003',
    did: 'did:key:z6MkvqoYXQfDDJRv8L4wKzxYeuKyVZBfi9Qo6Ro8MiLH3kDQ',
    publicKeyBase58: 'HPYVwAQmskwT1qEEeRzhoomyfyupJGASQQtCXSNG8XS2',
    keyAgreementMultibase: 'z6LSiUo6AEDat8Ze4nQzDo67SGuHLLwsUGkxndHGUjsywHow',
    keyAgreementBase58: '7ocvdvQinfqtyQ3Dh9aA7ggoVCQkmfaoueZazHETDv3B',
  },
  {
    seed: '0000000000000000000000000000000000000000000000000000000000000004',
    did: 'did:key:z6MkwW6aqMnjgrhJXFUko3NnZPGzVpkNzhYK7yEhnsibmLwL',
    publicKeyBase58: 'J3qYF7YJMKCqQke47UQwiHizgFUXapHxRxKmxbkar89x',
    keyAgreementMultibase: 'z6LSrGb3qm4xMCEBjvwkLb2WEcXfTM94Tu1RyGCbT5wbg8i9',
    keyAgreementBase58: 'FbQtKTG6FjWSeYZyowWYv2KBcCbwmHqH6HUuxdJ4xkwP',
  },
];

/** PKCS#8 DER header of an Ed25519 private key (RFC 8410); the 32-byte seed follows it. */
const ed25519Pkcs8Prefix = Buffer.from('302e020100300506032b657004220420', 'hex');

/** The raw Ed25519 public key of a seed, computed by node:crypto rather than by the code under test. */
function publicKeyFromSeed(seedHex: string): Buffer {
  const privateKey = createPrivateKey({
    key: Buffer.concat([ed25519Pkcs8Prefix, Buffer.from(seedHex, 'hex')]),
    format: 'der',
    type: 'pkcs8',
  });
  return rawPublicKey(createPublicKey(privateKey).export({ format: 'jwk' }).x);
}

function rawPublicKey(jwkX: string | undefined): Buffer {
  if (jwkX === undefined) throw new Error('node:crypto exported an Ed25519 JWK without x');
  return Buffer.from(jwkX, 'base64url');
}

function randomPublicKey(): Buffer {
  return rawPublicKey(generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }).x);
}

describe('did:key encoding', () => {
  describe(ed25519DidKey.name, () => {
    it.each(publishedVectors)('gives the published DID for seed $seed', ({ seed, did }) => {
      const identity = ed25519DidKey(publicKeyFromSeed(seed));

      expect(identity.did).toBe(did);
      expect(identity.publicKeyMultibase).toBe(did.slice('did:key:'.length));
    });

    it.each(publishedVectors)(
      'gives as verkey the published base58 public key for seed $seed',
      ({ seed, publicKeyBase58 }) => {
        expect(ed25519DidKey(publicKeyFromSeed(seed)).verkey).toBe(publicKeyBase58);
      },
    );

    it('keeps leading zero bytes of the key in the verkey, as base58btc does with "1"', () => {
      // base58btc writes each leading zero byte as '1', and a value of zero has no further digits.
      expect(ed25519DidKey(new Uint8Array(32)).verkey).toBe('1'.repeat(32));
    });

    it('gives a verkey that decodes to exactly the raw public key', () => {
      const publicKey = randomPublicKey();

      expect(Buffer.from(base58.decode(ed25519DidKey(publicKey).verkey))).toEqual(publicKey);
    });

    it('gives a DID that starts with the Ed25519 multicodec prefix z6Mk', () => {
      const identity = ed25519DidKey(randomPublicKey());

      expect(identity.did).toMatch(/^did:key:z6Mk[1-9A-HJ-NP-Za-km-z]+$/);
    });

    it('gives different DIDs for different keys', () => {
      expect(ed25519DidKey(randomPublicKey()).did).not.toBe(ed25519DidKey(randomPublicKey()).did);
    });

    it.each([0, 1, 31, 33, 64])('rejects a public key of %i bytes', (length) => {
      expect(() => ed25519DidKey(new Uint8Array(length))).toThrow(
        'An Ed25519 public key has 32 bytes',
      );
    });
  });

  describe(ed25519DidDocument.name, () => {
    it.each(publishedVectors)(
      'gives the published X25519 key agreement key for seed $seed',
      ({ seed, did, keyAgreementMultibase, keyAgreementBase58 }) => {
        const document = ed25519DidDocument(publicKeyFromSeed(seed));

        expect(document.keyAgreement).toEqual([
          {
            id: `${did}#${keyAgreementMultibase}`,
            type: 'X25519KeyAgreementKey2020',
            controller: did,
            publicKeyMultibase: keyAgreementMultibase,
          },
        ]);
        // The multibase is z + base58(0xec 0x01 + the raw X25519 key the vector lists).
        const decoded = base58.decode(keyAgreementMultibase.slice(1));
        expect(Buffer.from(decoded.subarray(0, 2)).toString('hex')).toBe('ec01');
        expect(base58.encode(decoded.subarray(2))).toBe(keyAgreementBase58);
      },
    );

    it.each(publishedVectors)(
      'names the published verification method for seed $seed',
      ({ seed, did }) => {
        const document = ed25519DidDocument(publicKeyFromSeed(seed));

        expect(document.verificationMethod.map((method) => method.id)).toEqual([
          `${did}#${did.slice('did:key:'.length)}`,
        ]);
      },
    );

    it('describes the DID with one Ed25519 verification method used for every relationship', () => {
      const publicKey = randomPublicKey();
      const { did, publicKeyMultibase } = ed25519DidKey(publicKey);
      const verificationMethodId = `${did}#${publicKeyMultibase}`;

      const document = ed25519DidDocument(publicKey);

      expect(document).toEqual({
        '@context': [
          'https://www.w3.org/ns/did/v1',
          'https://w3id.org/security/suites/ed25519-2020/v1',
          'https://w3id.org/security/suites/x25519-2020/v1',
        ],
        id: did,
        verificationMethod: [
          {
            id: verificationMethodId,
            type: 'Ed25519VerificationKey2020',
            controller: did,
            publicKeyMultibase,
          },
        ],
        authentication: [verificationMethodId],
        assertionMethod: [verificationMethodId],
        capabilityDelegation: [verificationMethodId],
        capabilityInvocation: [verificationMethodId],
        keyAgreement: [
          {
            id: expect.stringMatching(new RegExp(`^${did}#z6LS[1-9A-HJ-NP-Za-km-z]+$`)),
            type: 'X25519KeyAgreementKey2020',
            controller: did,
            publicKeyMultibase: expect.stringMatching(/^z6LS/),
          },
        ],
      });
      const [keyAgreement] = document.keyAgreement!;
      expect(keyAgreement.id).toBe(`${did}#${keyAgreement.publicKeyMultibase}`);
    });

    it('resolves exactly as an independent did:key implementation does', async () => {
      const resolver = await independentResolver();
      const publicKeys = [
        ...publishedVectors.map(({ seed }) => publicKeyFromSeed(seed)),
        randomPublicKey(),
        randomPublicKey(),
        randomPublicKey(),
      ];

      for (const publicKey of publicKeys) {
        const document = ed25519DidDocument(publicKey);
        expect(document).toEqual(await resolver.get({ did: document.id }));
      }
    });

    it('resolves in the Multikey form exactly as an independent did:key implementation does', async () => {
      const resolver = await independentResolver('multikey');
      const publicKeys = [
        ...publishedVectors.map(({ seed }) => publicKeyFromSeed(seed)),
        randomPublicKey(),
        randomPublicKey(),
      ];

      for (const publicKey of publicKeys) {
        const document = ed25519MultikeyDidDocument(publicKey);
        expect(document).toEqual(await resolver.get({ did: document.id }));
        expect(document.verificationMethod[0].type).toBe('Multikey');
        expect(document['@context']).toContain('https://w3id.org/security/multikey/v1');
      }
    });

    it.each([0, 31, 33])('rejects a public key of %i bytes', (length) => {
      expect(() => ed25519DidDocument(new Uint8Array(length))).toThrow(
        'An Ed25519 public key has 32 bytes',
      );
    });
  });
});

describe('P-256 did:key', () => {
  it("reads the key of Digital Bazaar's P-256 Multikey as its did:key document", async () => {
    const { generate } = await import('@digitalbazaar/ecdsa-multikey');
    const key = await generate({ curve: 'P-256' });
    const did = `did:key:${key.publicKeyMultibase}`;
    const point = p256PublicKeyOfDidKey(did);
    expect(point).toHaveLength(33);
    const document = p256MultikeyDidDocument(point!);
    expect(document.id).toBe(did);
    expect(document.verificationMethod).toEqual([
      {
        id: `${did}#${key.publicKeyMultibase}`,
        type: 'Multikey',
        controller: did,
        publicKeyMultibase: key.publicKeyMultibase,
      },
    ]);
    expect(document.assertionMethod).toEqual([document.verificationMethod[0].id]);
  });

  it('refuses a point off the curve, an Ed25519 did:key and a truncated one', () => {
    const offCurve = `did:key:z${base58.encode(Uint8Array.from([0x80, 0x24, 0x02, ...new Uint8Array(32).fill(0xff)]))}`;
    expect(p256PublicKeyOfDidKey(offCurve)).toBeUndefined();
    expect(
      p256PublicKeyOfDidKey('did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp'),
    ).toBeUndefined();
    expect(p256PublicKeyOfDidKey('did:key:zDnae')).toBeUndefined();
  });
});
