import { AuditLog } from '../audit/audit-log.js';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { type Actor } from '../auth/caller.js';
import { type FieldError } from '../common/problem/problem.js';
import { APP_CONFIG } from '../config/config.token.js';
import { type AppConfig } from '../config/app-config.js';
import { statusListContext, statusPurposes, type StatusPurpose } from './status/bitstring.js';
import { StatusListsService } from './status/status-lists.service.js';
import {
  StatusIndexAllocator,
  type StatusEntry,
  type Taken,
} from './status/status-index-allocator.js';
import { IssuedCredentialsService } from './issued-credentials.service.js';
import { DidService } from '../did/did.service.js';
import { keepIdempotentAnswer } from '../idempotency/idempotent-answer.js';
import { TrustedIssuerPolicy } from '../trusted-issuers/trusted-issuer-policy.js';
import { EventOutbox } from '../events/event-outbox.js';
import { credentialInvalid, jsonLdProblem, notVerified } from './credential.errors.js';
import {
  asArray,
  credentialShapeErrors,
  dataModelOf,
  isJsonObject,
  issueShapeErrors,
  issuerIdOf,
  isUrl,
} from './credential-checks.js';
import { CredentialVerifier } from './credential-verifier.js';
import { signCredential, signingCryptosuites, type SigningCryptosuite } from './data-integrity.js';
import { DOCUMENT_LOADER } from './document-loader.js';
import { documentLimitErrors, verificationLimits } from './verification-limits.js';
import {
  type IssueCredentialDto,
  type UpdateStatusDto,
  type VerifyCredentialDto,
} from './dto/credential-requests.dto.js';
import { type VerificationDto } from './dto/credential-answers.dto.js';

type Json = Record<string, unknown>;

/** What the issuance record and its event say. */
interface Issuance {
  tenantId: string;
  credentialId: string;
  types: string[];
  cryptosuite: SigningCryptosuite;
  issuedBy: string;
  purposes: StatusPurpose[];
}

@Injectable()
export class CredentialsService {
  private readonly logger = new Logger('Credentials');

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly dids: DidService,
    private readonly statusLists: StatusListsService,
    private readonly statusIndices: StatusIndexAllocator,
    private readonly issued: IssuedCredentialsService,
    @Inject(DOCUMENT_LOADER) private readonly documentLoader: DocumentLoader,
    private readonly verifier: CredentialVerifier,
    private readonly outbox: EventOutbox,
    private readonly trust: TrustedIssuerPolicy,
    private readonly audit: AuditLog,
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
    const errors = credentialShapeErrors(submitted, 'credential.');
    errors.push(...issueShapeErrors(submitted, 'credential.'));
    if ('proof' in submitted) {
      errors.push({ field: 'credential.proof', message: 'must be absent: the service adds it' });
    }
    errors.push(...this.givenStatusErrors(submitted.credentialStatus));
    if (
      submitted.id !== undefined &&
      options.credentialId !== undefined &&
      submitted.id !== options.credentialId
    ) {
      errors.push({ field: 'options.credentialId', message: 'differs from credential.id' });
    }
    const tenant = await this.dids.signerFor(tenantId);
    if (submitted.issuer !== undefined && issuerIdOf(submitted) !== tenant.did) {
      errors.push({
        field: 'credential.issuer',
        message: `must be the tenant's DID ${tenant.did}`,
      });
    }
    const purposes = this.statusPurposesOf(options.credentialStatus, errors);
    const given = asArray(submitted.credentialStatus);
    if (given.length + purposes.length > verificationLimits.statusEntries) {
      errors.push({
        field: 'credential.credentialStatus',
        message: `and the service's entries (${purposes.length}) are more than ${verificationLimits.statusEntries}`,
      });
    }
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
      const signed = await sign(await this.recordIssue(manager, issuance));
      await keepIdempotentAnswer(manager, { verifiableCredential: signed });
      return signed;
    });
  }

  /**
   * The issuance record, its credential.issued event and, the usual way, its status entries, in one
   * statement; an entry that statement could not take is taken the slow way after it.
   */
  private async recordIssue(manager: EntityManager, issuance: Issuance): Promise<StatusEntry[]> {
    const { tenantId, credentialId, types, cryptosuite, issuedBy, purposes } = issuance;
    const record = this.issued.recordSql(
      tenantId,
      { id: credentialId, types, cryptosuite, issuedBy },
      1,
    );
    const entries = this.statusIndices.takeRandomItems(
      tenantId,
      credentialId,
      purposes,
      record.parameters.length + 1,
    );
    let rows: Record<string, Taken | null>[];
    try {
      rows = await this.outbox.withChange<Record<string, Taken | null>>(
        manager,
        {
          before: purposes.length === 0 ? undefined : entries.items,
          sql: record.sql,
          parameters: [...record.parameters, ...entries.parameters],
          select: purposes.length === 0 ? undefined : `SELECT ${entries.select} FROM change`,
        },
        {
          type: 'credential.issued',
          tenantId,
          data: { tenantId, credentialId, types, cryptosuite, statusPurposes: purposes },
        },
      );
    } catch (error) {
      throw this.issued.duplicateOf(error, credentialId) ?? error;
    }
    const taken = purposes.map((_, n) => rows[0]?.[`status_entry_${n}`] ?? null);
    return this.statusIndices.complete(manager, tenantId, credentialId, purposes, taken);
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
        date: new Date(),
        documentLoader: this.documentLoader,
      });
    } catch (error) {
      throw jsonLdProblem(error, 'credential') ?? error;
    }
  }

  /** The tenant rules of every tenant-scoped route: an unknown tenant is 404 here too. */
  async requireTenant(tenantId: string): Promise<void> {
    await this.dids.getDid(tenantId);
  }

  /** Sets or clears a credential's status bit; one audit line. */
  async updateStatus(
    tenantId: string,
    actor: Actor,
    { credentialId, credentialStatus, status = true }: UpdateStatusDto,
  ): Promise<void> {
    const purpose = credentialStatus.statusPurpose;
    await this.statusLists.setStatus(tenantId, credentialId, purpose, status);
    this.audit.record('credential.status', actor, tenantId, {
      credentialId,
      statusPurpose: purpose,
      status,
    });
  }

  /**
   * Status entries the caller gives are signed as given, and not managed here (no revocation through
   * our endpoints); one that points into our own lists could only claim an index we did not allocate.
   */
  private givenStatusErrors(given: unknown): FieldError[] {
    const errors: FieldError[] = [];
    const ours = new URL(`${this.config.publicBaseUrl}/ctrl/status-lists/`);
    const intoOurLists = (url: unknown) => {
      if (typeof url !== 'string' || !URL.canParse(url)) return false;
      const parsed = new URL(url);
      return parsed.origin === ours.origin && parsed.pathname.startsWith(ours.pathname);
    };
    for (const [index, entry] of asArray(given).entries()) {
      const field = `credential.credentialStatus${Array.isArray(given) ? `[${index}]` : ''}`;
      if (!isJsonObject(entry)) continue; // credentialShapeErrors names it
      if (entry.id !== undefined && !isUrl(entry.id)) {
        errors.push({ field: `${field}.id`, message: 'must be a URL' });
      }
      if (entry.type === 'BitstringStatusListEntry')
        errors.push(...bitstringEntryErrors(entry, field));
      if (intoOurLists(entry.statusListCredential) || intoOurLists(entry.id)) {
        errors.push({
          field: `${field}.statusListCredential`,
          message:
            "must not point into this service's status lists: ask for an entry with options.credentialStatus",
        });
      }
    }
    return errors;
  }

  /** The purposes to attach: options.credentialStatus when given, else the deployment's default. */
  private statusPurposesOf(requested: unknown, errors: FieldError[]): StatusPurpose[] {
    if (requested === undefined) return this.config.credentialStatusDefault;
    const purposes: StatusPurpose[] = [];
    for (const [index, entry] of asArray(requested).entries()) {
      const { type, statusPurpose, ...rest } = (entry ?? {}) as Json;
      if (
        type !== 'BitstringStatusListEntry' ||
        !statusPurposes.includes(statusPurpose as StatusPurpose) ||
        Object.keys(rest).length > 0
      ) {
        errors.push({
          field: `options.credentialStatus[${index}]`,
          message: `must be {"type": "BitstringStatusListEntry", "statusPurpose": ${statusPurposes.map((p) => `"${p}"`).join(' or ')}}`,
        });
      } else if (!purposes.includes(statusPurpose as StatusPurpose)) {
        purposes.push(statusPurpose as StatusPurpose);
      }
    }
    // One order for every issue: its lists' rows are then always locked in the same order.
    return statusPurposes.filter((purpose) => purposes.includes(purpose));
  }

  /** Every check of a secured credential; throws CREDENTIAL_NOT_VERIFIED naming each that failed. */
  async verify(
    tenantId: string,
    { verifiableCredential: credential, options = {} }: VerifyCredentialDto,
  ): Promise<VerificationDto> {
    await this.requireTenant(tenantId);
    const trustedIssuers = await this.trust.trustedFor(tenantId, options);
    const { proofs, problems, checks, issuer } = await this.verifier.inspectCredential(
      credential,
      'verifiableCredential',
      undefined,
      { checks: options.checks, trustedIssuers },
    );
    if (problems.length > 0) throw notVerified(checks, problems);
    return { verified: true, checks, issuer: issuer ?? '', proofs, warnings: [] };
  }
}

/** What Bitstring Status List §2.1 asks of an entry, so that a verifier can read it at all. */
function bitstringEntryErrors(entry: Json, field: string): FieldError[] {
  const errors: FieldError[] = [];
  if (typeof entry.statusPurpose !== 'string' || entry.statusPurpose === '') {
    errors.push({ field: `${field}.statusPurpose`, message: 'is required' });
  }
  if (typeof entry.statusListIndex !== 'string' || !/^\d{1,10}$/.test(entry.statusListIndex)) {
    errors.push({
      field: `${field}.statusListIndex`,
      message: 'must be a whole number as a string',
    });
  }
  if (!isUrl(entry.statusListCredential)) {
    errors.push({ field: `${field}.statusListCredential`, message: 'must be a URL' });
  }
  return errors;
}

/** VC 1.1's context does not define the status entry's terms: its credentials name the status context. */
function withStatusContext(credential: Json): void {
  const contexts: unknown = credential['@context'];
  if (dataModelOf(credential) !== 1 || !Array.isArray(contexts)) return;
  if (!contexts.includes(statusListContext)) {
    credential['@context'] = [...(contexts as unknown[]), statusListContext];
  }
}
