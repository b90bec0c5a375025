import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
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
import { IssueRecorder, type PreparedIssue } from './issue-recorder.js';
import { type RecordIssueValues, type TakenOnIssue } from './record-issue.js';
import { withStatusContext } from './issue-request-checks.js';
import { issueSdJwtVc } from '../sd-jwt/sd-jwt-vc.js';
import { type JoseSigningKey } from '../../jose/algorithms.js';
import { didJwkOf } from '../../jose/did-keys.js';
import { type PublicJwk } from '../../jose/jwk.js';
import { type StatusEntry } from '../status/status-index-allocator.js';
import { isMdocDeviceKey, signHolderMdocs, type MdocRequest } from './holder-mdoc.js';

export { isMdocDeviceKey, type MdocRequest };

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

export type HolderIssueRequest = SdJwtVcRequest | LdpVcRequest | MdocRequest;

/** One issued credential: its record id (`GET /credentials/{id}`) and the credential itself. */
export interface HolderCredential {
  credentialId: string;
  /**
   * The SD-JWT VC as its compact serialisation (`<jwt>~<disclosure>~...~`), the ldp_vc document, or
   * the mdoc's IssuerSigned as base64url CBOR.
   */
  credential: string | Json;
}

/** Holder keys per call: OpenID4VCI's batch (the credential endpoint's `batch_size`) at most. */
export const maxHolderKeys = 2;

/** A holder key with the id of its credential's record. */
export type RecordedHolder = HolderKey & { credentialId: string };

/** One credential's record prepared for the caller's statement, with the holder it is for. */
export interface PreparedHolderIssue {
  holder: RecordedHolder;
  issue: PreparedIssue;
}

/** What the record says the credential is: its types, and its cryptosuite or signature algorithm. */
function typesOf(request: HolderIssueRequest): [string[], string] {
  if (request.format === 'dc+sd-jwt') return [[request.vct], request.signingAlgorithm];
  // An mdoc's type is its doctype; it is signed with ES256 (COSE -7).
  if (request.format === 'mso_mdoc') return [[request.doctype], 'ES256'];
  return [request.credentialDefinition.type, request.cryptosuite];
}

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
   * The Document Signer chain of the tenant's ES256 key (ISO/IEC 18013-5 Annex B) that signs its
   * mdocs, to read before the caller's statement as `issuerChain`. Undefined without an authority.
   */
  documentSignerChain(tenantId: string): Promise<string[] | undefined> {
    return this.certificates.documentSignerChain(tenantId);
  }

  /**
   * The records of `request`'s credentials, one per holder, for the caller's statement (the credential
   * endpoint's, which takes the offer in the same statement): `IssueRecorder.inStatement` runs it.
   */
  prepare(request: HolderIssueRequest, holders: HolderKey[]): PreparedHolderIssue[] {
    if (holders.length === 0 || holders.length > maxHolderKeys) {
      throw new Error(`between 1 and ${maxHolderKeys} holder keys per issue`);
    }
    return holders.map((holder) => {
      const credentialId = holder.credentialId ?? `urn:uuid:${randomUUID()}`;
      const [types, cryptosuite] = typesOf(request);
      const issue = this.recorder.prepare({
        tenantId: request.tenantId,
        credentialId,
        types,
        cryptosuite,
        issuedBy: issuedByOffer(request.offerId),
        purposes: request.revocable ? ['revocation'] : [],
        format: request.format,
        origin: { offerId: request.offerId, configurationId: request.configurationId },
      });
      return { holder: { ...holder, credentialId }, issue };
    });
  }

  /**
   * Runs the caller's statement with the `record_issue` values of each prepared credential, their
   * events' rows in them (`IssueRecorder.inStatement`).
   */
  inStatement<Row>(
    prepared: readonly PreparedHolderIssue[],
    statement: (records: RecordIssueValues[]) => Promise<Row[]>,
  ): Promise<Row[]> {
    return this.recorder.inStatement(
      prepared.map(({ issue }) => issue),
      statement,
    );
  }

  /**
   * Signs the credentials `prepare` recorded, once their statement committed with what its entries
   * took (`taken`, in order). `chain`, from `issuerChain`, goes into the header of an SD-JWT VC signed
   * with the ES256 key; an EdDSA one (the DID's Ed25519 key) has no certificate, so no `x5c`. For an
   * mdoc it is the `documentSignerChain`, the MSO's x5chain, which it requires.
   * `storedKey`: the tenant's ES256 key row when the caller's statement read it.
   */
  async sign(
    request: HolderIssueRequest,
    prepared: PreparedHolderIssue[],
    taken: (TakenOnIssue | null)[],
    chain?: readonly string[],
    storedKey?: StoredSigningKey,
  ): Promise<HolderCredential[]> {
    const entries = await Promise.all(
      prepared.map(({ issue }, n) => this.recorder.entriesAfter(issue, taken[n] ?? null)),
    );
    const issued: HolderCredential[] = [];
    if (request.format === 'dc+sd-jwt') {
      const key = await this.joseKey(request, chain, storedKey);
      for (const [n, { holder }] of prepared.entries())
        issued.push(await this.sdJwtVc(request, key, holder, entries[n]));
    } else if (request.format === 'mso_mdoc') {
      if (chain === undefined) throw new Error('an mdoc needs the document signer chain');
      const key = await this.keys.es256PrivateKey(request.tenantId, storedKey);
      const holders = prepared.map(({ holder }) => holder);
      issued.push(...(await signHolderMdocs(request, holders, entries, key, chain, this.clock())));
    } else {
      const tenant = await this.dids.signerFor(request.tenantId);
      for (const [n, { holder }] of prepared.entries())
        issued.push(await this.ldpVc(request, tenant, holder, entries[n]));
    }
    return issued;
  }

  private async joseKey(
    request: SdJwtVcRequest,
    chain: readonly string[] | undefined,
    storedKey: StoredSigningKey | undefined,
  ): Promise<JoseSigningKey> {
    if (request.signingAlgorithm === 'EdDSA') return this.keys.eddsaSigningKey(request.tenantId);
    const key = await this.keys.es256SigningKey(request.tenantId, undefined, storedKey);
    return chain === undefined ? key : { ...key, x5c: chain };
  }

  /** RFC 9901 and the SD-JWT VC draft: `cnf` the holder's key, the status a Token Status List entry. */
  private async sdJwtVc(
    request: SdJwtVcRequest,
    key: JoseSigningKey,
    holder: RecordedHolder,
    entries: StatusEntry[],
  ): Promise<HolderCredential> {
    // The record's id only: an SD-JWT VC carries no jti, which would be a correlation handle.
    const { credentialId } = holder;
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
    request: LdpVcRequest,
    tenant: Awaited<ReturnType<DidService['signerFor']>>,
    holder: RecordedHolder,
    entries: StatusEntry[],
  ): Promise<HolderCredential> {
    const { credentialId } = holder;
    const types = request.credentialDefinition.type;
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
}
