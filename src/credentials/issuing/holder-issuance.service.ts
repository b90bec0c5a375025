import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { type EntityManager } from 'typeorm';
import {
  CertificatesService,
  type ActiveCertificate,
} from '../../certificates/certificates.service.js';
import { CLOCK, type Clock } from '../../common/clock.js';
import { DidService } from '../../did/did.service.js';
import { TenantKeys, type StoredSigningKey } from '../../did/tenant-keys.service.js';
import { jsonLdProblem } from '../credential.errors.js';
import { dataModelOf } from '../credential-checks.js';
import { signCredential } from '../data-integrity.js';
import { DOCUMENT_LOADER } from '../document-loader.js';
import { IssueRecorder } from './issue-recorder.js';
import { withStatusContext } from './issue-request-checks.js';
import { issueSdJwtVc } from '../sd-jwt/sd-jwt-vc.js';
import { type JoseSigningKey } from '../../jose/algorithms.js';
import { didJwkOf } from '../../jose/did-keys.js';
import { type PublicJwk } from '../../jose/jwk.js';
import { type StatusPurpose } from '../status/bitstring.js';
import { type StatusEntry } from '../status/status-index-allocator.js';

type Json = Record<string, unknown>;

/** A claim path of OpenID4VCI 1.0 Appendix C: keys, array indices, null for every element. */
export type HolderClaimPath = (string | number | null)[];

/** The key a wallet proved it holds (one proof of a credential request), public members only. */
export interface HolderKey {
  jwk: PublicJwk;
  /** The holder's DID when the proof named its key by a DID URL (`kid`); else derived from `jwk`. */
  did?: string;
  /** The record's id (`urn:uuid:...`) when the caller chose it; else a new one. */
  credentialId?: string;
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

/** Holder keys per call: OpenID4VCI's batch (the credential endpoint's `batch_size`) at most. */
export const maxHolderKeys = 2;

/** Who a holder issuance's record names as its issuer: the offer, as no API caller is there. */
const issuedByOffer = (offerId: string) => `oid4vci:${offerId}`;

/**
 * Issues credentials to holders for the OpenID4VCI credential endpoint: one credential per holder key,
 * each with its record, its status entry (when revocable) and its `credential.issued` event, inside the
 * caller's transaction, so that the offer's change and the credentials commit or fail together.
 */
@Injectable()
export class HolderIssuanceService {
  constructor(
    private readonly recorder: IssueRecorder,
    private readonly keys: TenantKeys,
    private readonly dids: DidService,
    private readonly certificates: CertificatesService,
    @Inject(DOCUMENT_LOADER) private readonly documentLoader: DocumentLoader,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /**
   * The `x5c` of the tenant's ES256 key (HAIP 1.0 §6.1.1), for `issue`, to read before the caller's
   * transaction: a tenant's first certificate is made in a transaction of its own, whose connection
   * must not be waited for while the caller's is held. Undefined without a certificate. `read`: the
   * active certificate the caller already read, used without a read of its own while valid.
   */
  issuerChain(tenantId: string, read?: ActiveCertificate): Promise<string[] | undefined> {
    return this.certificates.activeChain(tenantId, read);
  }

  /**
   * `chain`, from `issuerChain`, goes into the header of an SD-JWT VC signed with the ES256 key; an
   * EdDSA one (the DID's Ed25519 key) has no certificate, so no `x5c`. `storedKey`: the tenant's
   * ES256 key row when the caller's statement read it (`tenant_signing_key_of`), else read here.
   */
  async issue(
    manager: EntityManager,
    request: HolderIssueRequest,
    holders: HolderKey[],
    chain?: readonly string[],
    storedKey?: StoredSigningKey,
  ): Promise<HolderCredential[]> {
    if (holders.length === 0 || holders.length > maxHolderKeys) {
      throw new Error(`between 1 and ${maxHolderKeys} holder keys per issue`);
    }
    const issued: HolderCredential[] = [];
    if (request.format === 'dc+sd-jwt') {
      const key = await this.joseKey(request, manager, chain, storedKey);
      for (const holder of holders) issued.push(await this.sdJwtVc(manager, request, key, holder));
    } else {
      const tenant = await this.dids.signerFor(request.tenantId, manager);
      for (const holder of holders) {
        issued.push(await this.ldpVc(manager, request, tenant, holder));
      }
    }
    return issued;
  }

  /** Read on the caller's connection: a second one while its transaction waits could drain the pool. */
  private async joseKey(
    request: SdJwtVcRequest,
    manager: EntityManager,
    chain: readonly string[] | undefined,
    storedKey: StoredSigningKey | undefined,
  ): Promise<JoseSigningKey> {
    if (request.signingAlgorithm === 'EdDSA') {
      return this.keys.eddsaSigningKey(request.tenantId, manager);
    }
    const key = await this.keys.es256SigningKey(request.tenantId, manager, storedKey);
    return chain === undefined ? key : { ...key, x5c: chain };
  }

  /** RFC 9901 and the SD-JWT VC draft: `cnf` the holder's key, the status a Token Status List entry. */
  private async sdJwtVc(
    manager: EntityManager,
    request: SdJwtVcRequest,
    key: JoseSigningKey,
    holder: HolderKey,
  ): Promise<HolderCredential> {
    // The record's id only: an SD-JWT VC carries no jti, which would be a correlation handle.
    const credentialId = holder.credentialId ?? `urn:uuid:${randomUUID()}`;
    const entries = await this.record(manager, request, credentialId, [request.vct], key.alg);
    const iat = Math.floor(this.clock() / 1000);
    const revocation = entries[0];
    const credential = await issueSdJwtVc(
      {
        iss: request.credentialIssuer,
        vct: request.vct,
        iat,
        exp: request.expiresInSeconds === null ? undefined : iat + request.expiresInSeconds,
        cnfJwk: holder.jwk,
        status:
          revocation === undefined
            ? undefined
            : {
                idx: Number(revocation.statusListIndex),
                uri: `${revocation.statusListCredential}/token`,
              },
        claims: request.claims,
        selectivelyDisclosable: request.selectivelyDisclosable,
      },
      key,
    );
    return { credentialId, credential };
  }

  /** The credential POST /credentials/issue would make, its subject the holder's DID. */
  private async ldpVc(
    manager: EntityManager,
    request: LdpVcRequest,
    tenant: Awaited<ReturnType<DidService['signerFor']>>,
    holder: HolderKey,
  ): Promise<HolderCredential> {
    const credentialId = holder.credentialId ?? `urn:uuid:${randomUUID()}`;
    const types = request.credentialDefinition.type;
    const entries = await this.record(manager, request, credentialId, types, request.cryptosuite);
    const now = new Date(this.clock());
    const credential: Json = {
      '@context': [...request.credentialDefinition['@context']],
      id: credentialId,
      type: [...types],
      issuer: tenant.did,
      credentialSubject: { ...request.claims, id: holder.did ?? didJwkOf(holder.jwk) },
    };
    if (request.expiresInSeconds !== null) {
      const until = new Date(now.getTime() + request.expiresInSeconds * 1000).toISOString();
      const v1 = dataModelOf(credential) === 1;
      credential[v1 ? 'expirationDate' : 'validUntil'] = until.replace(/\.\d{3}Z$/, 'Z');
    }
    if (entries.length > 0) {
      credential.credentialStatus = entries[0];
      withStatusContext(credential);
    }
    try {
      const signed = await signCredential(credential, {
        signer: tenant.signer,
        cryptosuite: request.cryptosuite,
        date: now,
        documentLoader: this.documentLoader,
      });
      return { credentialId, credential: signed };
    } catch (error) {
      throw jsonLdProblem(error, 'credential') ?? error;
    }
  }

  /** The record, its event and its revocation entry when revocable, in the caller's transaction. */
  private record(
    manager: EntityManager,
    request: HolderIssueRequest,
    credentialId: string,
    types: string[],
    cryptosuite: string,
  ): Promise<StatusEntry[]> {
    const purposes: StatusPurpose[] = request.revocable ? ['revocation'] : [];
    return this.recorder.record(manager, {
      tenantId: request.tenantId,
      credentialId,
      types,
      cryptosuite,
      issuedBy: issuedByOffer(request.offerId),
      purposes,
      format: request.format,
      origin: { offerId: request.offerId, configurationId: request.configurationId },
    });
  }
}
