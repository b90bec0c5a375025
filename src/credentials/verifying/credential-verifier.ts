import { Inject, Injectable } from '@nestjs/common';
import jsonld from 'jsonld';
import { CLOCK, type Clock } from '../../common/clock.js';
import { DomainException } from '../../common/problem/domain.exception.js';
import {
  checkProblemTypes,
  credentialInvalid,
  jsonLdProblem,
  type CheckProblem,
} from '../credential.errors.js';
import {
  asArray,
  credentialShapeErrors,
  idOf,
  isJsonObject,
  issuerIdOf,
  validityProblem,
} from '../credential-checks.js';
import { verifyProofs } from '../data-integrity.js';
import { DOCUMENT_LOADER } from '../document-loader.js';
import { DidResolution } from '../did-resolution/did-resolution.js';
import { resolvedDidMethods, UnresolvableDidError } from '../did-resolution/unresolvable-did.js';
import { RemoteStatusLists } from '../status/remote-status-lists.js';
import { StatusListsService, type KnownDid } from '../status/status-lists.service.js';
import { documentLimitErrors, remoteStatusListLimits } from '../verification-limits.js';
import { CredentialStatusChecks } from './credential-status-checks.js';
import { oneStepAtATime } from '../verification-steps.js';
import { runs, type VerificationPolicy } from './verification-policy.js';
import { describeProof, proofProblem, untrustedProblem } from './verification-findings.js';

type Json = Record<string, unknown>;

/** What checking one secured document found: its proofs (without values) and every failed check. */
export interface Inspection {
  proofs: Json[];
  problems: CheckProblem[];
}

/** The checks of a credential; `status` only once proof and issuer passed (docs/credentials.md). */
export type CredentialInspection = Inspection & { checks: string[]; issuer?: string };

/**
 * The time a request has for the documents it fetches (did:web documents, status lists), from now: a
 * presentation's credentials share one.
 */
export function statusDeadline(): AbortSignal {
  return AbortSignal.timeout(remoteStatusListLimits.deadlineMs);
}

/** The checks of a credential, shared by credential and presentation verification. */
@Injectable()
export class CredentialVerifier {
  private readonly status: CredentialStatusChecks;

  constructor(
    @Inject(DOCUMENT_LOADER) private readonly documentLoader: DocumentLoader,
    statusLists: StatusListsService,
    remoteLists: RemoteStatusLists,
    private readonly dids: DidResolution,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    this.status = new CredentialStatusChecks(statusLists, remoteLists);
  }

  /**
   * Proofs, issuer, validity and status of a credential. Throws 400 when it is not a credential at
   * all or exceeds a limit (`field` names where it sits in the request); otherwise answers what
   * failed. Its status lists are read by `deadline`; `policy` says which checks run and whose
   * credentials pass; `verifying`, the verifying tenant's DID, spares reading it for its own lists.
   */
  async inspectCredential(
    credential: Json,
    field: string,
    deadline = statusDeadline(),
    policy: VerificationPolicy = {},
    verifying?: KnownDid,
  ): Promise<CredentialInspection> {
    const beyond = documentLimitErrors(credential, field);
    if (beyond.length > 0) throw credentialInvalid(beyond);
    const errors = credentialShapeErrors(credential, `${field}.`);
    if (credential.proof === undefined)
      errors.push({ field: `${field}.proof`, message: 'is required' });
    if (errors.length > 0) throw credentialInvalid(errors);
    await this.expand(credential, field);

    const { proofs, problems } = await this.inspectProofs(credential, deadline);
    const issuer = issuerIdOf(credential);
    const issuerProblem =
      issuer === undefined
        ? 'the credential names no issuer'
        : ((await this.keyProblem(issuer, proofs, 'assertionMethod', deadline)) ??
          untrustedProblem(issuer, policy.trustedIssuers));
    if (issuerProblem !== undefined) {
      problems.push({
        type: checkProblemTypes.issuer,
        check: 'issuer',
        title: 'Not signed by the issuer',
        detail: issuerProblem,
      });
    }
    // A credential its issuer did not sign says nothing about its status: its lists are not read.
    const authentic = problems.length === 0;
    const checks = ['proof', 'issuer'];
    const validity = runs(policy, 'validity')
      ? validityProblem(credential, new Date(this.clock()))
      : undefined;
    if (runs(policy, 'validity')) checks.push('validity');
    if (validity !== undefined) {
      problems.push({
        type: checkProblemTypes.validity,
        check: 'validity',
        title: 'Outside its validity period',
        detail: validity,
      });
    }
    if (!authentic || !runs(policy, 'status')) return { proofs, problems, checks, issuer };
    problems.push(
      ...(await this.status.problems(credential, deadline, verifying, (list) =>
        this.listProblem(list),
      )),
    );
    return { proofs, problems, checks: [...checks, 'status'], issuer };
  }

  /** What is wrong with a status list credential from elsewhere: limits, terms, proofs, key, dates. */
  private async listProblem(list: Json): Promise<string | undefined> {
    const beyond = documentLimitErrors(list, 'statusListCredential');
    if (beyond.length > 0)
      return `does not verify: ${beyond.map((error) => `${error.field} ${error.message}`).join('; ')}`;
    try {
      await this.expand(list, 'statusListCredential');
    } catch (error) {
      if (error instanceof DomainException) return `does not verify: ${error.message}`;
      throw error;
    }
    const { proofs, problems } = await this.inspectProofs(list);
    const issuer = issuerIdOf(list) ?? '';
    const unsigned =
      problems[0]?.detail ?? (await this.keyProblem(issuer, proofs, 'assertionMethod'));
    if (unsigned !== undefined) return `does not verify: ${unsigned}`;
    const validity = validityProblem(list, new Date(this.clock()));
    return validity === undefined ? undefined : `is outside its validity period: ${validity}`;
  }

  /**
   * Every proof's signature (sets and chains); a document without a proof object fails. The proofs'
   * keys are resolved first, by `deadline`, and pinned for the steps, which fetch nothing.
   */
  async inspectProofs(document: Json, deadline = statusDeadline()): Promise<Inspection> {
    const methods = asArray(document.proof).map((proof) =>
      idOf(isJsonObject(proof) ? proof.verificationMethod : undefined),
    );
    const pinned = await this.dids.prefetch(
      methods.filter((method): method is string => method !== undefined),
      deadline,
    );
    const loader: DocumentLoader = (url) => {
      const document = pinned.get(url);
      return document === undefined
        ? this.documentLoader(url)
        : Promise.resolve({
            contextUrl: null,
            documentUrl: url,
            document: structuredClone(document),
          });
    };
    const results = await verifyProofs(document, loader);
    const problems: CheckProblem[] = [];
    if (results.length === 0) {
      problems.push(proofProblem('the document carries no proof object'));
    }
    for (const result of results.filter((one) => !one.verified)) {
      problems.push(proofProblem(`${describeProof(result.proof)}: ${result.error ?? 'invalid'}`));
    }
    return { proofs: results.map((one) => one.proof), problems };
  }

  /**
   * For `assertionMethod` (an issuer), at least one proof of the set or chain must be made for it with
   * a key the issuer's DID lists for it; the others, all verified, are endorsements (Data Integrity
   * §2.1). For `authentication` (a holder), every proof that starts a chain must be the holder's.
   */
  async keyProblem(
    controller: string,
    proofs: Json[],
    relationship: 'assertionMethod' | 'authentication',
    deadline = statusDeadline(),
  ): Promise<string | undefined> {
    let document: Json;
    try {
      const pinned = (await this.dids.prefetch([controller], deadline)).get(controller);
      document = pinned ?? ((await this.documentLoader(controller)).document as Json);
    } catch (error) {
      return error instanceof UnresolvableDidError
        ? error.message
        : `'${controller}' is not a DID this service resolves (${resolvedDidMethods.map((name) => `did:${name}`).join(', ')})`;
    }
    const listed = document[relationship];
    const allowed = new Set(
      (Array.isArray(listed) ? listed : []).map((method: unknown) =>
        typeof method === 'string' ? method : (method as Json).id,
      ),
    );
    const problemOf = (proof: Json): string | undefined => {
      const method = typeof proof.verificationMethod === 'string' ? proof.verificationMethod : '';
      if (proof.proofPurpose !== relationship) {
        return `${describeProof(proof)} is for '${String(proof.proofPurpose)}', not ${relationship}`;
      }
      if (!allowed.has(method)) {
        return `${describeProof(proof)}: the key '${method}' is not an ${relationship} key of ${controller}`;
      }
      return undefined;
    };
    const found = proofs.map(problemOf);
    if (relationship === 'assertionMethod') {
      if (found.includes(undefined)) return undefined;
      return found.length > 0 ? found.join('; ') : `no proof by ${controller}`;
    }
    return found.find(
      (problem, index) => problem !== undefined && proofs[index].previousProof === undefined,
    );
  }

  /** JSON-LD expansion in safe mode: an unknown context or an undefined term is refused, by name. */
  async expand(document: Json, field: string): Promise<void> {
    try {
      await oneStepAtATime(() =>
        jsonld.expand(document, { documentLoader: this.documentLoader, safe: true }),
      );
    } catch (error) {
      throw jsonLdProblem(error, field) ?? error;
    }
  }
}
