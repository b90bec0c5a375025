import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { CLOCK, type Clock } from '../../common/clock.js';
import { DomainException } from '../../common/problem/domain.exception.js';
import { type FieldError } from '../../common/problem/problem.js';
import { tenantNotFound } from '../../tenancy/tenant.errors.js';
import { AuditLog } from '../../audit/audit-log.js';
import { type Actor } from '../../auth/caller.js';
import { Settings } from '../../config/settings.js';
import { DidService } from '../../did/did.service.js';
import { keepIdempotentAnswer } from '../../idempotency/idempotent-answer.js';
import { IssueRecorder } from './issue-recorder.js';
import { credentialInvalid, jsonLdProblem } from '../credential.errors.js';
import { asArray } from '../credential-checks.js';
import { CredentialVerifier } from '../verifying/credential-verifier.js';
import { signCredential, signingCryptosuites, type SigningCryptosuite } from '../data-integrity.js';
import { DOCUMENT_LOADER } from '../document-loader.js';
import { documentLimitErrors, verificationLimits } from '../verification-limits.js';
import {
  issuerErrors,
  requestedPurposes,
  requiredIssuer,
  submittedErrors,
  withStatusContext,
} from './issue-request-checks.js';
import { type IssueCredentialDto } from '../dto/credential-requests.dto.js';

type Json = Record<string, unknown>;

/** Issuing: a credential signed by the tenant's DID, its record, status entries and event. */
@Injectable()
export class CredentialIssuanceService {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly settings: Settings,
    private readonly dids: DidService,
    private readonly recorder: IssueRecorder,
    @Inject(DOCUMENT_LOADER) private readonly documentLoader: DocumentLoader,
    private readonly verifier: CredentialVerifier,
    private readonly audit: AuditLog,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /**
   * Signs a credential with the tenant's DID; the credential is not stored. Its record, event and
   * status entries are written by the statement that reads the tenant's key (for a tenant whose DID is
   * the issuer the credential names), then it is signed in the same transaction: a refusal from there
   * on (JSON-LD that `eddsa-rdfc-2022` refuses while canonicalizing, a master key this instance lacks)
   * rolls all of it back.
   */
  async issue(
    tenantId: string,
    actor: Actor,
    { credential: submitted, options = {} }: IssueCredentialDto,
  ): Promise<Json> {
    const { documentValues, issueReserve } = verificationLimits;
    const beyond = documentLimitErrors(submitted, 'credential', documentValues - issueReserve);
    if (beyond.length > 0) throw credentialInvalid(beyond);
    const ourLists = `${this.settings.PUBLIC_BASE_URL}/ctrl/status-lists/`;
    const errors = submittedErrors(submitted, options, ourLists);
    const given = asArray(submitted.credentialStatus);
    const purposeErrors: FieldError[] = [];
    const purposes = requestedPurposes(
      options.credentialStatus,
      this.settings.CREDENTIAL_STATUS_DEFAULT,
      given,
      purposeErrors,
    );
    if (errors.length + purposeErrors.length > 0) {
      // Refused before any write: the tenant's DID read alone, to name it beside the other problems.
      const did = await this.didOf(tenantId);
      throw credentialInvalid([...errors, ...issuerErrors(submitted, did), ...purposeErrors]);
    }

    const credentialId = (submitted.id ??
      options.credentialId ??
      `urn:uuid:${randomUUID()}`) as string;
    const cryptosuite = options.cryptosuite ?? signingCryptosuites[0];
    // eddsa-rdfc-2022 canonicalizes in safe mode while signing; JCS reads no JSON-LD, so check it here,
    // before any read: its problem is answered before the tenant's or the issuer's.
    if (cryptosuite === 'eddsa-jcs-2022') {
      await this.verifier.expand({ ...submitted, id: credentialId }, 'credential');
    }
    const issuance = {
      tenantId,
      credentialId,
      types: asArray(submitted.type).filter((type): type is string => typeof type === 'string'),
      cryptosuite,
      issuedBy: actor.username ?? actor.subject,
      purposes,
    };
    const signed = await this.dataSource.transaction(async (manager) => {
      const recorded = await this.recorder.record(manager, issuance, requiredIssuer(submitted));
      if (recorded.key === undefined) throw await this.notRecorded(tenantId, submitted);
      const tenant = this.dids.signerOf(tenantId, recorded.key);
      // The statement wrote only for this issuer; checked again against the DID that signs.
      const wrongIssuer = issuerErrors(submitted, tenant.did);
      if (wrongIssuer.length > 0) throw credentialInvalid(wrongIssuer);
      const credential: Json = {
        ...submitted,
        id: credentialId,
        issuer: submitted.issuer ?? tenant.did,
      };
      if (recorded.entries.length > 0) {
        const all = [...recorded.entries, ...given];
        credential.credentialStatus = all.length === 1 ? all[0] : all;
        withStatusContext(credential);
      }
      const answer = await this.sign(credential, tenant.signer, cryptosuite);
      await keepIdempotentAnswer(manager, { verifiableCredential: answer });
      return answer;
    });
    this.audit.record('credential.issue', actor, tenantId, {
      credentialId,
      cryptosuite,
      statusPurposes: purposes,
    });
    return signed;
  }

  /** Why the issue statement wrote nothing: no such tenant, or the credential names another issuer. */
  private async notRecorded(tenantId: string, submitted: Json): Promise<DomainException> {
    const errors = issuerErrors(submitted, await this.didOf(tenantId));
    return errors.length > 0 ? credentialInvalid(errors) : tenantNotFound(tenantId);
  }

  /** The tenant's DID alone, no key read (a refusal needs no master key); 404 without one. */
  private async didOf(tenantId: string): Promise<string> {
    const did = (await this.dids.didsOf([tenantId])).get(tenantId);
    if (did === undefined) throw tenantNotFound(tenantId);
    return did;
  }

  private async sign(
    credential: Json,
    signer: Signer,
    cryptosuite: SigningCryptosuite,
  ): Promise<Json> {
    try {
      return await signCredential(credential, {
        signer,
        cryptosuite,
        date: new Date(this.clock()),
        documentLoader: this.documentLoader,
      });
    } catch (error) {
      throw jsonLdProblem(error, 'credential') ?? error;
    }
  }
}
