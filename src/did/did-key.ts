import { ed25519 } from '@noble/curves/ed25519.js';
import { base58 } from '@scure/base';
import {
  ed25519PublicKeyCodec,
  p256PublicKeyCodec,
  toMultibase,
  x25519PublicKeyCodec,
} from '../jose/did-keys.js';

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
