import { ed25519 } from '@noble/curves/ed25519.js';
import { p256 } from '@noble/curves/nist.js';
import { base58 } from '@scure/base';

/** Multicodec prefixes (unsigned varint) of the key types a did:key can carry. */
const ed25519PublicKeyCodec = Uint8Array.of(0xed, 0x01);
const x25519PublicKeyCodec = Uint8Array.of(0xec, 0x01);
/** p256-pub (0x1200), followed by the 33-byte compressed point. */
const p256PublicKeyCodec = Uint8Array.of(0x80, 0x24);

/** `z` + base58btc(multicodec + raw key): the multibase form did:key uses. */
function toMultibase(codec: Uint8Array, rawKey: Uint8Array): string {
  const bytes = new Uint8Array(codec.length + rawKey.length);
  bytes.set(codec);
  bytes.set(rawKey, codec.length);
  return `z${base58.encode(bytes)}`;
}

export interface DidKeyIdentity {
  did: string;
  /** The did:key's method-specific id, `z6Mk…`. */
  publicKeyMultibase: string;
  /** base58btc of the raw public key, Lissi Agent's `verkey`. */
  verkey: string;
}

export function ed25519DidKey(publicKey: Uint8Array): DidKeyIdentity {
  if (publicKey.length !== 32) throw new Error('An Ed25519 public key has 32 bytes');
  const publicKeyMultibase = toMultibase(ed25519PublicKeyCodec, publicKey);
  return {
    did: `did:key:${publicKeyMultibase}`,
    publicKeyMultibase,
    verkey: base58.encode(publicKey),
  };
}

/** The raw Ed25519 public key a `did:key:z6Mk…` carries, or undefined when it carries none. */
export function ed25519PublicKeyOfDidKey(did: string): Uint8Array | undefined {
  return keyOfDidKey(did, ed25519PublicKeyCodec, 32);
}

/** The compressed P-256 point a `did:key:zDn…` carries, when it is a point of the curve. */
export function p256PublicKeyOfDidKey(did: string): Uint8Array | undefined {
  const point = keyOfDidKey(did, p256PublicKeyCodec, 33);
  if (point === undefined) return undefined;
  try {
    p256.Point.fromBytes(point).assertValidity();
  } catch {
    return undefined;
  }
  return point;
}

/** The key after `codec` in a did:key of this one key type and length, or undefined. */
function keyOfDidKey(did: string, codec: Uint8Array, length: number): Uint8Array | undefined {
  // Base58 decoding is quadratic in the length: a did:key of any supported key is under 60 characters.
  const match = /^did:key:z([1-9A-HJ-NP-Za-km-z]{40,60})$/.exec(did);
  if (match === null) return undefined;
  let bytes: Uint8Array;
  try {
    bytes = base58.decode(match[1]);
  } catch {
    return undefined;
  }
  const [first, second] = codec;
  if (bytes.length !== codec.length + length || bytes[0] !== first || bytes[1] !== second) {
    return undefined;
  }
  return bytes.slice(codec.length);
}

/**
 * The did:key document of a P-256 key (`zDn…`) in the did:key specification's Multikey form (the
 * only form the ECDSA suites define); the same relationships as an Ed25519 did:key.
 */
export function p256MultikeyDidDocument(compressedPoint: Uint8Array): DidDocument {
  return multikeyDidDocument(toMultibase(p256PublicKeyCodec, compressedPoint));
}

export interface VerificationMethod {
  id: string;
  type: string;
  controller: string;
  publicKeyMultibase: string;
}

export interface DidDocument {
  '@context': string[];
  id: string;
  verificationMethod: VerificationMethod[];
  authentication: string[];
  assertionMethod: string[];
  capabilityDelegation: string[];
  capabilityInvocation: string[];
  /** In the Ed25519VerificationKey2020 form only (the Multikey form derives no encryption key). */
  keyAgreement?: VerificationMethod[];
}

/** The two forms of the document: the did:key specification's current one, and the 2020 suites'. */
export const didDocumentFormats = ['ed25519-2020', 'multikey'] as const;
export type DidDocumentFormat = (typeof didDocumentFormats)[number];

/**
 * The DID document in its current did:key form (W3C CCG did:key v0.9, Document Creation Algorithm with
 * its defaults: `publicKeyFormat` Multikey, `enableEncryptionKeyDerivation` false): one `Multikey`
 * verification method under the Multikey context, and no key agreement key.
 */
export function ed25519MultikeyDidDocument(publicKey: Uint8Array): DidDocument {
  return multikeyDidDocument(ed25519DidKey(publicKey).publicKeyMultibase);
}

/** The did:key document of one Multikey verification method, for every signing relationship. */
function multikeyDidDocument(publicKeyMultibase: string): DidDocument {
  const did = `did:key:${publicKeyMultibase}`;
  const verificationMethodId = `${did}#${publicKeyMultibase}`;
  return {
    '@context': ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/multikey/v1'],
    id: did,
    verificationMethod: [
      { id: verificationMethodId, type: 'Multikey', controller: did, publicKeyMultibase },
    ],
    authentication: [verificationMethodId],
    assertionMethod: [verificationMethodId],
    capabilityDelegation: [verificationMethodId],
    capabilityInvocation: [verificationMethodId],
  };
}

/**
 * The DID document that the did:key method defines for an Ed25519 key with the
 * Ed25519VerificationKey2020 and X25519KeyAgreementKey2020 suites (the did:key specification's
 * `publicKeyFormat` Ed25519VerificationKey2020 with `enableEncryptionKeyDerivation`, and what Digital
 * Bazaar's resolver derives with those suites): everything in it is derived from the key.
 */
export function ed25519DidDocument(publicKey: Uint8Array): DidDocument {
  const { did, publicKeyMultibase } = ed25519DidKey(publicKey);
  const verificationMethodId = `${did}#${publicKeyMultibase}`;
  // Key agreement uses the same key mapped from the Edwards to the Montgomery form (X25519).
  const keyAgreementMultibase = toMultibase(
    x25519PublicKeyCodec,
    ed25519.utils.toMontgomery(publicKey),
  );
  return {
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
        id: `${did}#${keyAgreementMultibase}`,
        type: 'X25519KeyAgreementKey2020',
        controller: did,
        publicKeyMultibase: keyAgreementMultibase,
      },
    ],
  };
}
