import { Inject, Injectable } from '@nestjs/common';
import jsonld from 'jsonld';
import {
  checkProblemTypes,
  credentialInvalid,
  jsonLdProblem,
  type CheckProblem,
} from './credential.errors.js';
import {
  asArray,
  credentialShapeErrors,
  issuerIdOf,
  validityProblem,
} from './credential-checks.js';
import { verifyProofs } from './data-integrity.js';
import { DOCUMENT_LOADER } from './document-loader.js';
import { StatusListsService } from './status/status-lists.service.js';

type Json = Record<string, unknown>;

/** What checking one secured document found: its proofs (without values) and every failed check. */
export interface Inspection {
  proofs: Json[];
  problems: CheckProblem[];
}

/** The checks of a credential, shared by credential and presentation verification. */
@Injectable()
export class CredentialVerifier {
  constructor(
    @Inject(DOCUMENT_LOADER) private readonly documentLoader: DocumentLoader,
    private readonly statusLists: StatusListsService,
  ) {}

  /**
   * Proofs, issuer and validity of a credential. Throws 400 when it is not a credential at all
   * (`field` names where it sits in the request); otherwise answers what failed.
   */
  async inspectCredential(credential: Json, field: string): Promise<Inspection> {
    const errors = credentialShapeErrors(credential, `${field}.`);
    if (credential.proof === undefined)
      errors.push({ field: `${field}.proof`, message: 'is required' });
    if (errors.length > 0) throw credentialInvalid(errors);
    await this.expand(credential, field);

    const { proofs, problems } = await this.inspectProofs(credential);
    const issuer = issuerIdOf(credential);
    const issuerProblem =
      issuer === undefined
        ? 'the credential names no issuer'
        : await this.keyProblem(issuer, proofs, 'assertionMethod');
    if (issuerProblem !== undefined) {
      problems.push({
        type: checkProblemTypes.issuer,
        check: 'issuer',
        title: 'Not signed by the issuer',
        detail: issuerProblem,
      });
    }
    const validity = validityProblem(credential, new Date());
    if (validity !== undefined) {
      problems.push({
        type: checkProblemTypes.validity,
        check: 'validity',
        title: 'Outside its validity period',
        detail: validity,
      });
    }
    problems.push(...(await this.statusProblems(credential)));
    return { proofs, problems };
  }

  /** Each BitstringStatusListEntry: its bit must be clear in the list it names. */
  private async statusProblems(credential: Json): Promise<CheckProblem[]> {
    const problems: CheckProblem[] = [];
    for (const entry of asArray(credential.credentialStatus)) {
      const { type, statusPurpose, statusListIndex, statusListCredential } = (entry ?? {}) as Json;
      const problem = (detail: string, retrieval = false): void => {
        problems.push({
          type: retrieval ? checkProblemTypes.statusRetrieval : checkProblemTypes.status,
          check: 'status',
          title: retrieval ? 'Status could not be read' : 'Status set',
          detail,
        });
      };
      if (type !== 'BitstringStatusListEntry') {
        problem(`unsupported status entry type ${JSON.stringify(type)}`, true);
        continue;
      }
      const ours =
        typeof statusListCredential === 'string'
          ? this.statusLists.listOfUrl(statusListCredential)
          : undefined;
      if (ours === undefined) {
        problem(
          `the status list ${JSON.stringify(statusListCredential)} is not one of this service's; other origins are not fetched`,
          true,
        );
        continue;
      }
      const bit = await this.statusLists.bitOf(
        ours.tenantId,
        ours.listId,
        Number(statusListIndex),
        String(statusPurpose),
      );
      // bitOf has matched the purpose to the list's: revocation or suspension.
      if (typeof bit === 'string') problem(bit, true);
      else if (bit) {
        problem(`the credential is ${statusPurpose === 'revocation' ? 'revoked' : 'suspended'}`);
      }
    }
    return problems;
  }

  /** Every proof's signature (sets and chains); a document without a proof object fails. */
  async inspectProofs(document: Json): Promise<Inspection> {
    const results = await verifyProofs(document, this.documentLoader);
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
   * The proofs that start a chain (those without `previousProof`: all of a plain proof set) must be
   * made for `relationship` with a key the controller's DID lists for it.
   */
  async keyProblem(
    controller: string,
    proofs: Json[],
    relationship: 'assertionMethod' | 'authentication',
  ): Promise<string | undefined> {
    let document: Json;
    try {
      document = (await this.documentLoader(controller)).document as Json;
    } catch (error) {
      return error instanceof Error && error.name === 'UnresolvableDidError'
        ? error.message
        : `'${controller}' is not a DID this service resolves (only did:key)`;
    }
    const listed = document[relationship];
    const allowed = new Set(
      (Array.isArray(listed) ? listed : []).map((method: unknown) =>
        typeof method === 'string' ? method : (method as Json).id,
      ),
    );
    for (const proof of proofs.filter((one) => one.previousProof === undefined)) {
      const method = typeof proof.verificationMethod === 'string' ? proof.verificationMethod : '';
      if (proof.proofPurpose !== relationship) {
        return `${describeProof(proof)} is for '${String(proof.proofPurpose)}', not ${relationship}`;
      }
      if (!allowed.has(method)) {
        return `${describeProof(proof)}: the key '${method}' is not an ${relationship} key of ${controller}`;
      }
    }
    return undefined;
  }

  /** JSON-LD expansion in safe mode: an unknown context or an undefined term is refused, by name. */
  async expand(document: Json, field: string): Promise<void> {
    try {
      await jsonld.expand(document, { documentLoader: this.documentLoader, safe: true });
    } catch (error) {
      throw jsonLdProblem(error, field) ?? error;
    }
  }
}

function proofProblem(detail: string): CheckProblem {
  return {
    type: checkProblemTypes.proof,
    check: 'proof',
    title: 'Proof verification failed',
    detail,
  };
}

export function describeProof(proof: Json): string {
  const name = typeof proof.cryptosuite === 'string' ? proof.cryptosuite : String(proof.type);
  return typeof proof.id === 'string' ? `proof ${proof.id} (${name})` : `proof (${name})`;
}
