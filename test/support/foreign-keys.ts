import { DataIntegrityProof } from '@digitalbazaar/data-integrity';
import { cryptosuite as ecdsaRdfc2019 } from '@digitalbazaar/ecdsa-rdfc-2019-cryptosuite';
import { createSignCryptosuite as ecdsaJcs2019 } from '@digitalbazaar/ecdsa-jcs-2019-cryptosuite';
import * as EcdsaMultikey from '@digitalbazaar/ecdsa-multikey';
import * as Ed25519Multikey from '@digitalbazaar/ed25519-multikey';
import { cryptosuite as eddsaRdfc2022 } from '@digitalbazaar/eddsa-rdfc-2022-cryptosuite';
import { createSignCryptosuite as eddsaJcs2022 } from '@digitalbazaar/eddsa-jcs-2022-cryptosuite';
import * as vc from '@digitalbazaar/vc';
import { bundledContexts } from '../../src/credentials/contexts.js';
import { createDocumentLoader } from '../../src/credentials/document-loader.js';
import { type Json } from './credentials-harness.js';

export type KeyKind = 'Ed25519' | 'P-256';
export type Canonicalization = 'rdfc' | 'jcs';

/** Signing needs no DID resolved: contexts only. */
const documentLoader = createDocumentLoader(bundledContexts());

/**
 * A key of an issuer or holder elsewhere, made and used by Digital Bazaar's libraries only: Ed25519
 * signs eddsa-rdfc-2022 / eddsa-jcs-2022, P-256 ecdsa-rdfc-2019 / ecdsa-jcs-2019.
 */
export interface ForeignKey {
  kind: KeyKind;
  publicKeyMultibase: string;
  publicKeyJwk: Json;
  /** Signs `credential` as `issuer` with the verification method `methodId`. */
  issue(credential: Json, issuer: string, methodId: string, how?: Canonicalization): Promise<Json>;
  /** A presentation by `holder` with the verification method `methodId`. */
  present(
    credentials: Json[],
    holder: string,
    methodId: string,
    challenge: string,
    how?: Canonicalization,
  ): Promise<Json>;
}

export async function foreignKey(kind: KeyKind): Promise<ForeignKey> {
  const keyPair =
    kind === 'Ed25519'
      ? await Ed25519Multikey.generate()
      : await EcdsaMultikey.generate({ curve: 'P-256' });
  const publicKeyJwk =
    kind === 'Ed25519'
      ? await Ed25519Multikey.toJwk({ keyPair })
      : await EcdsaMultikey.toJwk({ keyPair });
  const suite = (methodId: string, how: Canonicalization = 'rdfc') => {
    const signer = { ...keyPair.signer(), id: methodId };
    const cryptosuite =
      kind === 'Ed25519'
        ? how === 'rdfc'
          ? eddsaRdfc2022
          : eddsaJcs2022()
        : how === 'rdfc'
          ? ecdsaRdfc2019
          : ecdsaJcs2019();
    return new DataIntegrityProof({ signer, cryptosuite });
  };
  return {
    kind,
    publicKeyMultibase: keyPair.publicKeyMultibase,
    publicKeyJwk,
    issue: (credential, issuer, methodId, how) =>
      vc.issue({
        credential: { ...credential, issuer },
        suite: suite(methodId, how),
        documentLoader,
      }),
    present: (credentials, holder, methodId, challenge, how) =>
      vc.signPresentation({
        presentation: {
          '@context': ['https://www.w3.org/ns/credentials/v2'],
          type: ['VerifiablePresentation'],
          holder,
          verifiableCredential: credentials,
        },
        suite: suite(methodId, how),
        documentLoader,
        challenge,
      }),
  };
}

/** The did:jwk of a key: its public JWK, base64url. */
export function didJwkOf(key: ForeignKey): string {
  const { kty, crv, x, y } = key.publicKeyJwk;
  const jwk = y === undefined ? { kty, crv, x } : { kty, crv, x, y };
  return `did:jwk:${Buffer.from(JSON.stringify(jwk)).toString('base64url')}`;
}

/** A verification method of `did` for `key`, as Multikey or as JsonWebKey. */
export function methodOf(
  did: string,
  key: ForeignKey,
  fragment = 'key-1',
  form: 'Multikey' | 'JsonWebKey' | 'Ed25519VerificationKey2020' = 'Multikey',
): Json {
  const id = `${did}#${fragment}`;
  return form === 'JsonWebKey'
    ? { id, type: 'JsonWebKey', controller: did, publicKeyJwk: key.publicKeyJwk }
    : { id, type: form, controller: did, publicKeyMultibase: key.publicKeyMultibase };
}

/** A DID document with `methods`, each listed for `relationships`. */
export function didDocumentOf(
  did: string,
  methods: Json[],
  relationships: string[] = ['assertionMethod', 'authentication'],
): Json {
  const ids = methods.map((method) => method.id);
  return {
    '@context': [
      'https://www.w3.org/ns/did/v1',
      'https://w3id.org/security/multikey/v1',
      'https://w3id.org/security/suites/ed25519-2020/v1',
      'https://w3id.org/security/jwk/v1',
    ],
    id: did,
    verificationMethod: methods,
    ...Object.fromEntries(relationships.map((relationship) => [relationship, ids])),
  };
}
