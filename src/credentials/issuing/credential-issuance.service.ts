import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { CLOCK, type Clock } from '../../common/clock.js';
import { AuditLog } from '../../audit/audit-log.js';
import { type Actor } from '../../auth/caller.js';
import { Settings } from '../../config/settings.js';
import { DidService } from '../../did/did.service.js';
import { keepIdempotentAnswer } from '../../idempotency/idempotent-answer.js';
import { type StatusEntry } from '../status/status-index-allocator.js';
import { IssueRecorder, type Issuance } from './issue-recorder.js';
import { credentialInvalid, jsonLdProblem } from '../credential.errors.js';
import { asArray, issuerIdOf } from '../credential-checks.js';
import { CredentialVerifier } from '../verifying/credential-verifier.js';
import { signCredential, signingCryptosuites, type SigningCryptosuite } from '../data-integrity.js';
import { DOCUMENT_LOADER } from '../document-loader.js';
import { documentLimitErrors, verificationLimits } from '../verification-limits.js';
import { requestedPurposes, submittedErrors, withStatusContext } from './issue-request-checks.js';
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

  /** Signs a credential with the tenant's DID; the credential is not stored. */
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
    const tenant = await this.dids.signerFor(tenantId);
    if (submitted.issuer !== undefined && issuerIdOf(submitted) !== tenant.did) {
      errors.push({
        field: 'credential.issuer',
        message: `must be the tenant's DID ${tenant.did}`,
      });
    }
    const given = asArray(submitted.credentialStatus);
    const purposes = requestedPurposes(
      options.credentialStatus,
      this.settings.CREDENTIAL_STATUS_DEFAULT,
      given,
      errors,
    );
    if (errors.length > 0) throw credentialInvalid(errors);

    const credential: Json = {
      ...submitted,
      id: submitted.id ?? options.credentialId ?? `urn:uuid:${randomUUID()}`,
      issuer: submitted.issuer ?? tenant.did,
    };
    const cryptosuite = options.cryptosuite ?? signingCryptosuites[0];
    // eddsa-rdfc-2022 canonicalizes in safe mode while signing; JCS reads no JSON-LD, so check it here.
    if (cryptosuite === 'eddsa-jcs-2022') await this.verifier.expand(credential, 'credential');
    const issuance = {
      tenantId,
      credentialId: credential.id as string,
      types: asArray(credential.type).filter((type): type is string => typeof type === 'string'),
      cryptosuite,
      issuedBy: actor.username ?? actor.subject,
      purposes,
    };
    const sign = (entries: StatusEntry[]) => {
      if (entries.length > 0) {
        const all = [...entries, ...given];
        credential.credentialStatus = all.length === 1 ? all[0] : all;
        withStatusContext(credential);
      }
      return this.sign(credential, tenant.signer, cryptosuite);
    };
    const signed = await this.issueInTransaction(issuance, sign);
    this.audit.record('credential.issue', actor, tenantId, {
      credentialId: issuance.credentialId,
      cryptosuite,
      statusPurposes: purposes,
    });
    return signed;
  }

  /**
   * Record, event and status indices (an entry row each, no shared row updated: docs/performance.md)
   * in one statement, then the signature and the idempotent answer, in one transaction.
   */
  private issueInTransaction(
    issuance: Issuance,
    sign: (entries: StatusEntry[]) => Promise<Json>,
  ): Promise<Json> {
    return this.dataSource.transaction(async (manager) => {
      const signed = await sign(await this.recorder.record(manager, issuance));
      await keepIdempotentAnswer(manager, { verifiableCredential: signed });
      return signed;
    });
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
