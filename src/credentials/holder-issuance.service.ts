import { Injectable } from '@nestjs/common';
import { type JWK } from 'jose';
import { type EntityManager } from 'typeorm';

type Json = Record<string, unknown>;

/** A claim path of OpenID4VCI 1.0 Appendix C: keys, array indices, null for every element. */
export type HolderClaimPath = (string | number | null)[];

/** The key a wallet proved it holds (one proof of a credential request), public members only. */
export interface HolderKey {
  jwk: JWK;
  /** The holder's DID when the proof named its key by a DID URL (`kid`); else derived from `jwk`. */
  did?: string;
}

/** Where an issuance comes from: the offer that authorised it and the configuration it follows. */
export interface HolderIssuanceOrigin {
  tenantId: string;
  offerId: string;
  configurationId: string;
  /** The tenant's credential issuer identifier: the SD-JWT VC's `iss`. */
  credentialIssuer: string;
}

/** An SD-JWT VC (`dc+sd-jwt`) for the holder's key. */
export interface SdJwtVcRequest extends HolderIssuanceOrigin {
  format: 'dc+sd-jwt';
  vct: string;
  /** The payload's claims (the subject's). */
  claims: Json;
  /** Paths of `claims` that become disclosures; every other claim stays plain. */
  selectivelyDisclosable: HolderClaimPath[];
  signingAlgorithm: 'ES256' | 'EdDSA';
  expiresInSeconds: number | null;
  revocable: boolean;
}

/** A Data Integrity credential (`ldp_vc`) whose `credentialSubject.id` is the holder's DID. */
export interface LdpVcRequest extends HolderIssuanceOrigin {
  format: 'ldp_vc';
  credentialDefinition: { '@context': string[]; type: string[] };
  /** The properties of `credentialSubject` (without `id`). */
  claims: Json;
  cryptosuite: 'eddsa-rdfc-2022' | 'eddsa-jcs-2022';
  expiresInSeconds: number | null;
  revocable: boolean;
}

export type HolderIssueRequest = SdJwtVcRequest | LdpVcRequest;

/** One issued credential: its record id (`GET /credentials/{id}`) and the credential itself. */
export interface HolderCredential {
  credentialId: string;
  /** The SD-JWT VC as its compact serialisation (`<jwt>~<disclosure>~...~`), or the ldp_vc document. */
  credential: string | Json;
}

/**
 * Issues credentials to holders for the OpenID4VCI credential endpoint: one credential per holder key,
 * each with its record, its status entry (when revocable) and its `credential.issued` event, inside the
 * caller's transaction, so that the offer's change and the credentials commit or fail together.
 */
@Injectable()
export class HolderIssuanceService {
  // eslint-disable-next-line @typescript-eslint/require-await
  async issue(
    manager: EntityManager,
    request: HolderIssueRequest,
    holders: HolderKey[],
  ): Promise<HolderCredential[]> {
    void manager;
    void request;
    void holders;
    throw new Error('HolderIssuanceService.issue is not implemented yet');
  }
}
